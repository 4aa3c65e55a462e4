package app

import (
	"testing"
	"time"
)

// victimSpellings are eight spellings of one e-mail that all log into its account.
var victimSpellings = []string{
	"VICTIM@EXAMPLE.TEST", " victim@example.test", "victim@example.test ", "\tvictim@example.test",
	"Victim@Example.Test", "victim@example.test\t", "  VICTIM@example.test  ", "victim@EXAMPLE.test\n",
}

func (s *testServer) victim() sessionUser {
	s.t.Helper()
	admin := s.adminToken()
	return s.sessionUser(admin, s.newTenant(admin, "Victim"), "victim@example.test")
}

func loginBody(email, password string) map[string]string {
	return map[string]string{"email": email, "password": password}
}

// TestLoginSpellingsShareOneBudget: the eight spellings of an e-mail are one e-mail to
// the login limits: with a budget of eight failures, the ninth guess is refused, however
// it is spelled. They all reach the account.
func TestLoginSpellingsShareOneBudget(t *testing.T) {
	t.Parallel()
	for name, mutate := range map[string]func(*Config){
		// The budget per e-mail and address, refused beyond.
		"per address": func(c *Config) { c.RateLoginAddr, c.RateLoginAddrBurst = 0.01, 8 },
		// The budget per e-mail over all addresses (no delay allowed: refused beyond).
		"per e-mail": func(c *Config) { c.RateLogin, c.RateLoginBurst, c.LoginMaxDelay = 0.01, 8, 0 },
	} {
		t.Run(name, func(t *testing.T) {
			s := startServer(t, mutate)
			u := s.victim()
			for _, spelling := range victimSpellings {
				expect(t, s.do(req{method: "POST", path: "/api/auth/login", body: loginBody(spelling, "wrong password")}), 401, "invalid_credentials")
			}
			for _, spelling := range []string{"victim@example.test", victimSpellings[0], "VICTIM@example.TEST\t "} {
				r := s.do(req{method: "POST", path: "/api/auth/login", body: loginBody(spelling, "wrong password")})
				expect(t, r, 429, "rate_limited")
				if r.Header.Get("Retry-After") == "" {
					t.Fatal("got no Retry-After; want one")
				}
			}
			// Every spelling reaches the account (from an address with budget left).
			other := clientFrom("127.0.0.9")
			for _, spelling := range victimSpellings {
				r := doWith(t, other, s.base, req{method: "POST", path: "/api/auth/login", body: loginBody(spelling, u.Password)})
				if name == "per e-mail" {
					// The e-mail's budget is spent: the owner is not let in either.
					expect(t, r, 429, "rate_limited")
					continue
				}
				expect(t, r, 200, "")
			}
		})
	}
}

// TestOwnerLogsInDuringAttack: while an attacker guesses from several addresses, each
// address gets its few guesses and is then refused, the e-mail's budget is spent, and
// the owner, from an address that has not failed, still logs in with its password.
func TestOwnerLogsInDuringAttack(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) {
		// Per e-mail: a burst of 3, then a token a second; per address: 2 failures.
		c.RateLogin, c.RateLoginBurst = 60, 3
		c.RateLoginAddr, c.RateLoginAddrBurst = 0.01, 2
		c.LoginMaxDelay = 10 * time.Second
	})
	u := s.victim()
	guesses := 0
	for _, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"} {
		attacker := clientFrom(ip)
		answered := 0
		for i := 0; i < 5; i++ {
			r := doWith(t, attacker, s.base, req{method: "POST", path: "/api/auth/login",
				body: loginBody(victimSpellings[i%len(victimSpellings)], "guess")})
			switch r.Status {
			case 401:
				answered++
			case 429:
				expect(t, r, 429, "rate_limited")
			default:
				t.Fatalf("%s: got %d %s; want 401 or 429", ip, r.Status, r.Body)
			}
		}
		if answered < 1 || answered > 2 {
			t.Fatalf("%s got %d of 5 guesses answered; want 1..2 (its budget)", ip, answered)
		}
		guesses += answered
	}
	if guesses > 8 {
		t.Fatalf("got %d guesses answered; want at most 2 per address", guesses)
	}
	// The owner, from its own address, gets in: delayed, perhaps, never refused.
	p := s.login(u.Email, u.Password)
	s.reads(p.Token, 200)
	// And again right after, from the same address: its success left it clean.
	s.login(" "+u.Email, u.Password)
	// An attacker address that failed stays refused.
	expect(t, doWith(t, clientFrom("127.0.0.2"), s.base, req{method: "POST", path: "/api/auth/login",
		body: loginBody(u.Email, "guess")}), 429, "rate_limited")
}
