// Package pdns pushes reverse DNS names (PTR records) to a PowerDNS Authoritative
// server through its HTTP API: the zone of an address is the longest reverse zone
// (in-addr.arpa or ip6.arpa) the server holds that the address's reverse name ends in,
// and the record is replaced in it, or deleted, by a PATCH of its rrset. It keeps no
// state; pdnstest runs a real server for the tests.
package pdns

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// DefaultServerID is the server id of PowerDNS's API on a single server.
const DefaultServerID = "localhost"

// TTL is the time to live of the PTR records pushed, in seconds.
const TTL = 3600

// timeout bounds one push (the zones' list and the change): the push is made while
// its request waits.
const timeout = 5 * time.Second

// Client talks to one PowerDNS server's API.
type Client struct {
	base   string
	key    string
	server string
	http   *http.Client
}

// New returns a client of the API at baseURL (e.g. http://127.0.0.1:8081), with the
// API key and server id ("" is DefaultServerID).
func New(baseURL, key, server string) *Client {
	if server == "" {
		server = DefaultServerID
	}
	return &Client{base: strings.TrimSuffix(baseURL, "/"), key: key, server: server, http: &http.Client{Timeout: timeout}}
}

// ReverseName is the name an address's PTR record has: d.c.b.a.in-addr.arpa. for
// IPv4, the 32 nibbles reversed under ip6.arpa. for IPv6.
func ReverseName(ip netip.Addr) string {
	ip = ip.Unmap()
	var b strings.Builder
	if ip.Is4() {
		a := ip.As4()
		for i := 3; i >= 0; i-- {
			fmt.Fprintf(&b, "%d.", a[i])
		}
		return b.String() + "in-addr.arpa."
	}
	a := ip.As16()
	const hex = "0123456789abcdef"
	for i := 15; i >= 0; i-- {
		b.WriteByte(hex[a[i]&0xf])
		b.WriteByte('.')
		b.WriteByte(hex[a[i]>>4])
		b.WriteByte('.')
	}
	return b.String() + "ip6.arpa."
}

// zone is one zone of the server's list.
type zone struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// SetPTR makes name the PTR record of ip (name "" deletes the record). A server with
// no reverse zone that holds ip is apierr.ErrDNSZoneMissing; a server that cannot be
// reached or refuses the change is apierr.ErrDNSUnavailable.
func (c *Client) SetPTR(ctx context.Context, ip netip.Addr, name string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rev := ReverseName(ip)
	var zones []zone
	if err := c.do(ctx, http.MethodGet, "/zones", nil, &zones); err != nil {
		return err
	}
	var best *zone
	for i, z := range zones {
		n := strings.ToLower(z.Name)
		if (rev == n || strings.HasSuffix(rev, "."+n)) && (best == nil || len(n) > len(best.Name)) {
			best = &zones[i]
		}
	}
	if best == nil {
		return apierr.New(apierr.ErrDNSZoneMissing, "the DNS server has no reverse zone for %s (%s): an operator creates it there first", ip, rev)
	}
	rr := map[string]any{"name": rev, "type": "PTR", "changetype": "DELETE"}
	if name != "" {
		rr["changetype"] = "REPLACE"
		rr["ttl"] = TTL
		rr["records"] = []map[string]any{{"content": strings.TrimSuffix(name, ".") + ".", "disabled": false}}
	}
	body := map[string]any{"rrsets": []any{rr}}
	return c.do(ctx, http.MethodPatch, "/zones/"+url.PathEscape(best.ID), body, nil)
}

// do makes one call of the API under /api/v1/servers/<server>, decoding the answer
// into out when given.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+"/api/v1/servers/"+url.PathEscape(c.server)+path, body)
	if err != nil {
		return apierr.New(apierr.ErrDNSUnavailable, "the DNS server's API address is not usable: %v", err)
	}
	req.Header.Set("X-API-Key", c.key)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return apierr.New(apierr.ErrDNSUnavailable, "the DNS server did not answer: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		if e.Error == "" {
			e.Error = strings.TrimSpace(string(raw))
		}
		return apierr.New(apierr.ErrDNSUnavailable, "the DNS server refused %s %s: %d %s", method, path, resp.StatusCode, e.Error)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return apierr.New(apierr.ErrDNSUnavailable, "the DNS server's answer to %s %s is not understood: %v", method, path, err)
		}
	}
	return nil
}
