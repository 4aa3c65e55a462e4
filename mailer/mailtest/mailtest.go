// Package mailtest is a real SMTP server (emersion/go-smtp's) on a loopback port for
// tests: it accepts mail, optionally over STARTTLS or TLS with a certificate of its own
// and only after a PLAIN login, and keeps every message it received for the test to
// read.
package mailtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Options configure a Server.
type Options struct {
	// TLS serves TLS from the first byte; StartTLS offers STARTTLS. Either makes the
	// server a certificate for 127.0.0.1 signed by a CA of its own (Server.ClientTLS
	// trusts it).
	TLS, StartTLS bool
	// User and Password, when set, are required (AUTH PLAIN) before a message.
	User, Password string
	// Fail, when set, is the error every DATA answers (a server refusing mail).
	Fail error
}

// Message is one message the server received.
type Message struct {
	From string
	To   []string
	// Raw is the message as sent; Header and Body are parsed from it (Body decoded
	// from quoted-printable when the message says it is).
	Raw    string
	Header mail.Header
	Body   string
}

// Server is a running test SMTP server.
type Server struct {
	// Host and Port are where it listens (127.0.0.1).
	Host string
	Port int
	// ClientTLS trusts the server's certificate (nil without TLS or StartTLS).
	ClientTLS *tls.Config

	srv  *smtp.Server
	opts Options
	mu   sync.Mutex
	msgs []Message
	got  chan struct{}
}

// Start starts a server; it stops at the test's cleanup.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{opts: opts, got: make(chan struct{}, 1)}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	srv.Domain = "mailtest.localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 1 << 20
	srv.AllowInsecureAuth = !opts.TLS && !opts.StartTLS
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if opts.TLS || opts.StartTLS {
		cert, pool := selfSigned(t)
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.ClientTLS = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
		if opts.TLS {
			ln = tls.NewListener(ln, srv.TLSConfig)
		}
	}
	s.srv = srv
	s.Host, s.Port = "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return s
}

// Messages returns the messages received so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Wait returns the n-th message (1-based) once it has arrived, or fails the test after
// timeout.
func (s *Server) Wait(t testing.TB, n int, timeout time.Duration) Message {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if m := s.Messages(); len(m) >= n {
			return m[n-1]
		}
		select {
		case <-s.got:
		case <-deadline.C:
			t.Fatalf("mailtest: %d message(s) after %s, waited for %d", len(s.Messages()), timeout, n)
		}
	}
}

type session struct {
	s      *Server
	authed bool
	from   string
	to     []string
}

var _ smtp.AuthSession = (*session)(nil)

func (c *session) AuthMechanisms() []string {
	if c.s.opts.User == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (c *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, password string) error {
		if user != c.s.opts.User || password != c.s.opts.Password {
			return errors.New("invalid user or password")
		}
		c.authed = true
		return nil
	}), nil
}

func (c *session) Mail(from string, _ *smtp.MailOptions) error {
	if c.s.opts.User != "" && !c.authed {
		return smtp.ErrAuthRequired
	}
	c.from = from
	return nil
}

func (c *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	c.to = append(c.to, to)
	return nil
}

func (c *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if c.s.opts.Fail != nil {
		return c.s.opts.Fail
	}
	m := Message{From: c.from, To: c.to, Raw: string(raw)}
	if pm, err := mail.ReadMessage(strings.NewReader(m.Raw)); err == nil {
		m.Header = pm.Header
		body := pm.Body
		if strings.EqualFold(pm.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
			body = quotedprintable.NewReader(body)
		}
		b, _ := io.ReadAll(body)
		m.Body = strings.ReplaceAll(string(b), "\r\n", "\n")
	}
	c.s.mu.Lock()
	c.s.msgs = append(c.s.msgs, m)
	c.s.mu.Unlock()
	select {
	case c.s.got <- struct{}{}:
	default:
	}
	return nil
}

func (c *session) Reset()        { c.from, c.to = "", nil }
func (c *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and the pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailtest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
