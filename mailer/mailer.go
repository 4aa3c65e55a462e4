// Package mailer sends the mail vmplane writes to people, such as a password reset
// link, through the operator's SMTP server (emersion/go-smtp's client): plain, STARTTLS
// or TLS from the first byte, with PLAIN authentication when a user is set.
package mailer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/vmplane/vmplane/persistence"
)

// Security is how the connection to the SMTP server is protected.
type Security string

// Securities.
const (
	// StartTLS connects in plain text and upgrades with STARTTLS before anything else
	// is said; a server that does not offer it is an error (port 587).
	StartTLS Security = "starttls"
	// TLS speaks TLS from the first byte (port 465).
	TLS Security = "tls"
	// None sends in plain text: for a relay on the same host only.
	None Security = "none"
)

// Config is where and as whom mail is sent.
type Config struct {
	// Host and Port of the SMTP server.
	Host string
	Port int
	// Security is StartTLS, TLS or None.
	Security Security
	// User and Password authenticate (SASL PLAIN) when User is set.
	User, Password string
	// From is the sender, an address or "Name <address>".
	From string
	// Timeout bounds one message's whole conversation (30 s when zero).
	Timeout time.Duration
	// TLSConfig, when set, is the TLS configuration (tests trust their own CA with
	// it); otherwise the system's roots verify the server's certificate for Host.
	TLSConfig *tls.Config
}

// Check reports what is wrong with c, as a sentence naming the setting.
func (c Config) Check() error {
	switch {
	case c.Host == "":
		return errors.New("the SMTP host is not set")
	case c.Port < 1 || c.Port > 65535:
		return fmt.Errorf("the SMTP port %d is not a port", c.Port)
	case c.Security != StartTLS && c.Security != TLS && c.Security != None:
		return fmt.Errorf("the SMTP security %q is none of starttls, tls and none", c.Security)
	case c.User != "" && c.Security == None && !isLoopback(c.Host):
		// A password sent in plain text over a network is a password given away.
		return errors.New("an SMTP user and password need starttls or tls, unless the server is on this host")
	}
	if _, err := mail.ParseAddress(c.From); err != nil {
		return fmt.Errorf("the sender %q is not an e-mail address: %v", c.From, err)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Message is one plain-text mail to one recipient.
type Message struct {
	To      string
	Subject string
	Text    string
}

// Sender sends messages through one SMTP server.
type Sender struct {
	cfg  Config
	from *mail.Address
}

// New returns a Sender for cfg, or why cfg cannot work.
func New(cfg Config) (*Sender, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	from, _ := mail.ParseAddress(cfg.From)
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &Sender{cfg: cfg, from: from}, nil
}

// Send sends m, and returns once the server has taken it (or why it did not), within
// ctx and the configured timeout.
func (s *Sender) Send(ctx context.Context, m Message) error {
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return fmt.Errorf("recipient %q: %w", m.To, err)
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return errors.New("a subject is one line")
	}
	body, err := s.compose(to, m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	c, stop, err := s.dial(ctx)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", s.addr(), err)
	}
	defer c.Close()
	defer stop()
	if s.cfg.User != "" {
		if err := c.Auth(sasl.NewPlainClient("", s.cfg.User, s.cfg.Password)); err != nil {
			return fmt.Errorf("smtp %s: authentication: %w", s.addr(), err)
		}
	}
	if err := c.SendMail(s.from.Address, []string{to.Address}, strings.NewReader(body)); err != nil {
		return fmt.Errorf("smtp %s: %w", s.addr(), err)
	}
	_ = c.Quit() // the server has the message; a failed goodbye loses nothing
	return nil
}

func (s *Sender) addr() string { return net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port)) }

// dial opens the conversation, upgraded or wrapped in TLS as configured. go-smtp's
// client takes no context and sets a deadline of its own before each command (minutes
// long, then none), which replaces any the connection had: so the end of ctx, its
// deadline (Config.Timeout) or a cancellation (a shutdown), closes the connection,
// whatever the client is waiting for, until stop is called once the conversation is
// over; and the client's own timeouts are ctx's, so that none outlasts it.
func (s *Sender) dial(ctx context.Context) (c *smtp.Client, stop func() bool, err error) {
	tc := s.cfg.TLSConfig
	if tc == nil {
		tc = &tls.Config{ServerName: s.cfg.Host, MinVersion: tls.VersionTLS12}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr())
	if err != nil {
		return nil, nil, err
	}
	dl, ok := ctx.Deadline()
	if ok {
		_ = conn.SetDeadline(dl)
	}
	stop = context.AfterFunc(ctx, func() { conn.Close() })
	switch s.cfg.Security {
	case TLS:
		c = smtp.NewClient(tls.Client(conn, tc))
	case StartTLS:
		c, err = smtp.NewClientStartTLS(conn, tc)
	default:
		c = smtp.NewClient(conn)
	}
	if err != nil {
		stop()
		conn.Close()
		return nil, nil, err
	}
	if ok {
		c.CommandTimeout, c.SubmissionTimeout = time.Until(dl), time.Until(dl)
	}
	return c, stop, nil
}

// compose writes m as an RFC 5322 message in UTF-8, quoted-printable.
func (s *Sender) compose(to *mail.Address, m Message) (string, error) {
	var b strings.Builder
	header := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	header("From", s.from.String())
	header("To", to.String())
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", time.Now().Format(time.RFC1123Z))
	header("Message-ID", "<"+persistence.NewID()+"@"+domainOf(s.from.Address)+">")
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	w := quotedprintable.NewWriter(&b)
	if _, err := io.WriteString(w, strings.ReplaceAll(strings.ReplaceAll(m.Text, "\r\n", "\n"), "\n", "\r\n")); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		return addr[i+1:]
	}
	return "localhost"
}
