package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Targets decides which addresses a webhook may reach. A webhook's URL is given by
// a user (a tenant's too), and vmplane POSTs to it from inside the operator's
// network, so loopback, link-local, private, unspecified and multicast addresses are
// refused unless Allow holds them: at creation for an address in the URL, and for
// every connection at dial time (the dialer's Control sees the address actually
// dialled, so a name that resolves, or later rebinds, to such an address is refused
// too).
type Targets struct {
	Allow []netip.Prefix
}

// thisNetwork is 0.0.0.0/8, "this network", which some systems route to themselves.
var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

// Allowed reports whether a webhook may connect to a.
func (t Targets) Allowed(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t.Allow {
		if p.Contains(a) {
			return true
		}
	}
	return !(a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() ||
		a.IsMulticast() || a.IsUnspecified() || thisNetwork.Contains(a))
}

// CheckURL checks a webhook's URL: its shape and, when its host is an address, that
// the address is allowed. "" when it is fine.
func (t Targets) CheckURL(s string) string {
	if msg := validURL(s); msg != "" {
		return msg
	}
	u, _ := url.Parse(s)
	if a, err := netip.ParseAddr(u.Hostname()); err == nil && !t.Allowed(a) {
		return fmt.Sprintf("%s is a loopback, link-local, private or unspecified address (VMPLANE_WEBHOOK_ALLOW_CIDRS may allow it)", a)
	}
	return ""
}

// ErrRefusedAddress is the error of a connection to an address Targets refuses.
var ErrRefusedAddress = errors.New("the address is loopback, link-local, private or unspecified, which webhooks may not reach (VMPLANE_WEBHOOK_ALLOW_CIDRS)")

// control is the dialer's check of the address it is about to connect to.
func (t Targets) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	if !t.Allowed(a) {
		return fmt.Errorf("%s: %w", a, ErrRefusedAddress)
	}
	return nil
}

// sender POSTs deliveries, one bounded attempt at a time.
type sender struct {
	client *http.Client
}

func newSender(t Targets, timeout time.Duration) *sender {
	dialer := &net.Dialer{Timeout: min(timeout, 5*time.Second), Control: t.control}
	tr := &http.Transport{
		// No proxy from the environment: a proxy would connect for us, past the check.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   min(timeout, 5*time.Second),
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
	}
	return &sender{client: &http.Client{Transport: tr, Timeout: timeout,
		// A redirect is an answer that is not a success: the receiver fixes its URL.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (s *sender) close() { s.client.CloseIdleConnections() }

// post sends one attempt and returns the status code (0 when there was no answer).
func (s *sender) post(ctx context.Context, target string, header http.Header, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytesReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = header
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	// Read a little so the connection can be reused; the answer's body is not kept.
	_, _ = readSome(resp.Body, 64<<10)
	return resp.StatusCode, nil
}
