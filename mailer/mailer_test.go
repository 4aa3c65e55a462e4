package mailer_test

import (
	"context"
	"errors"
	"mime"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/mailer"
	"github.com/vmplane/vmplane/mailer/mailtest"
)

func send(t *testing.T, cfg mailer.Config, m mailer.Message) error {
	t.Helper()
	s, err := mailer.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s.Send(context.Background(), m)
}

// TestSendsOverEverySecurity sends through a real SMTP server in plain text, with
// STARTTLS and with TLS, logged in where it asks, and reads what it received.
func TestSendsOverEverySecurity(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts mailtest.Options
		sec  mailer.Security
	}{
		{"none", mailtest.Options{}, mailer.None},
		{"none with a user on loopback", mailtest.Options{User: "relay", Password: "pw"}, mailer.None},
		{"starttls", mailtest.Options{StartTLS: true, User: "relay", Password: "pw"}, mailer.StartTLS},
		{"tls", mailtest.Options{TLS: true, User: "relay", Password: "pw"}, mailer.TLS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mailtest.Start(t, tc.opts)
			cfg := mailer.Config{Host: srv.Host, Port: srv.Port, Security: tc.sec, User: tc.opts.User, Password: tc.opts.Password,
				From: "vmplane <panel@example.net>", TLSConfig: srv.ClientTLS}
			err := send(t, cfg, mailer.Message{To: "Ann <ann@example.org>", Subject: "Réinitialisation", Text: "line one\nline two é\n"})
			if err != nil {
				t.Fatal(err)
			}
			got := srv.Messages()
			if len(got) != 1 {
				t.Fatalf("messages: %d", len(got))
			}
			m := got[0]
			if m.From != "panel@example.net" || len(m.To) != 1 || m.To[0] != "ann@example.org" {
				t.Errorf("envelope: from %q to %q", m.From, m.To)
			}
			if subj, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject")); err != nil || subj != "Réinitialisation" {
				t.Errorf("subject: %q, %v", subj, err)
			}
			if m.Body != "line one\nline two é\n" {
				t.Errorf("body: %q", m.Body)
			}
			if m.Header.Get("Message-Id") == "" || m.Header.Get("Date") == "" {
				t.Errorf("headers: %v", m.Header)
			}
		})
	}
}

// TestSendFailsClearly: a wrong password, a server that refuses the message, a
// STARTTLS the server does not offer and an untrusted certificate each fail, naming
// the server.
func TestSendFailsClearly(t *testing.T) {
	msg := mailer.Message{To: "ann@example.org", Subject: "s", Text: "t"}
	t.Run("wrong password", func(t *testing.T) {
		srv := mailtest.Start(t, mailtest.Options{StartTLS: true, User: "relay", Password: "pw"})
		err := send(t, mailer.Config{Host: srv.Host, Port: srv.Port, Security: mailer.StartTLS, User: "relay", Password: "nope",
			From: "panel@example.net", TLSConfig: srv.ClientTLS}, msg)
		if err == nil || !strings.Contains(err.Error(), "authentication") {
			t.Fatalf("err = %v", err)
		}
		if len(srv.Messages()) != 0 {
			t.Error("a message was taken")
		}
	})
	t.Run("refused", func(t *testing.T) {
		srv := mailtest.Start(t, mailtest.Options{Fail: errors.New("mailbox full")})
		err := send(t, mailer.Config{Host: srv.Host, Port: srv.Port, Security: mailer.None, From: "panel@example.net"}, msg)
		if err == nil || !strings.Contains(err.Error(), srv.Host) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no starttls offered", func(t *testing.T) {
		srv := mailtest.Start(t, mailtest.Options{})
		err := send(t, mailer.Config{Host: srv.Host, Port: srv.Port, Security: mailer.StartTLS, From: "panel@example.net"}, msg)
		if err == nil {
			t.Fatal("sent in plain text though starttls was asked for")
		}
		if len(srv.Messages()) != 0 {
			t.Error("a message was taken")
		}
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		srv := mailtest.Start(t, mailtest.Options{TLS: true})
		err := send(t, mailer.Config{Host: srv.Host, Port: srv.Port, Security: mailer.TLS, From: "panel@example.net"}, msg)
		if err == nil {
			t.Fatal("sent to a server whose certificate nobody vouches for")
		}
	})
}

// silentServer accepts connections and says nothing, as a hung SMTP server does;
// accepted receives each connection once it is open.
func silentServer(t *testing.T) (port int, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			ch <- struct{}{}
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, ch
}

// TestSendEndsWithItsContext: a message being sent to a server that never answers is
// given up when its context ends (a shutdown), also once the conversation has begun,
// when go-smtp's client waits under a deadline of its own (minutes long).
func TestSendEndsWithItsContext(t *testing.T) {
	port, accepted := silentServer(t)
	s, err := mailer.New(mailer.Config{Host: "127.0.0.1", Port: port, Security: mailer.None, From: "panel@example.net"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Send(ctx, mailer.Message{To: "ann@example.org", Subject: "s", Text: "t"}) }()
	<-accepted // connected: Send waits for the greeting
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("sent to a silent server")
		}
	case <-time.After(time.Minute):
		t.Fatal("Send outlived its context")
	}
}

// TestSendEndsAtItsTimeout: the same server, no cancellation: Config.Timeout bounds the
// conversation (go-smtp's own per-command deadline, minutes long, must not replace it).
func TestSendEndsAtItsTimeout(t *testing.T) {
	port, _ := silentServer(t)
	s, err := mailer.New(mailer.Config{Host: "127.0.0.1", Port: port, Security: mailer.None, From: "panel@example.net",
		Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- s.Send(context.Background(), mailer.Message{To: "ann@example.org", Subject: "s", Text: "t"})
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("sent to a silent server")
		}
	case <-time.After(time.Minute):
		t.Fatal("Send outlived its timeout")
	}
}

func TestConfigAndMessageChecks(t *testing.T) {
	ok := mailer.Config{Host: "smtp.example.net", Port: 587, Security: mailer.StartTLS, From: "panel@example.net"}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]func(*mailer.Config){
		"no host":               func(c *mailer.Config) { c.Host = "" },
		"no port":               func(c *mailer.Config) { c.Port = 0 },
		"unknown security":      func(c *mailer.Config) { c.Security = "ssl" },
		"bad sender":            func(c *mailer.Config) { c.From = "panel" },
		"password in the clear": func(c *mailer.Config) { c.Security, c.User = mailer.None, "relay" },
	} {
		bad := ok
		c(&bad)
		if bad.Check() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	s, err := mailer.New(ok)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]mailer.Message{
		"two-line subject": {To: "ann@example.org", Subject: "a\r\nBcc: eve@example.org", Text: "t"},
		"bad recipient":    {To: "ann", Subject: "s", Text: "t"},
	} {
		if err := s.Send(context.Background(), m); err == nil {
			t.Errorf("%s: sent", name)
		}
	}
}
