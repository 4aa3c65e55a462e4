package app

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
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

// defaultLimits puts every rate limit at its default (the test servers run without).
func defaultLimits(c *Config) {
	d := Defaults()
	c.RateGlobal, c.RateGlobalBurst = d.RateGlobal, d.RateGlobalBurst
	c.RateAuth, c.RateAuthBurst = d.RateAuth, d.RateAuthBurst
	c.RateLogin, c.RateLoginBurst = d.RateLogin, d.RateLoginBurst
	c.RateLoginAddr, c.RateLoginAddrBurst = d.RateLoginAddr, d.RateLoginAddrBurst
	c.LoginMaxDelay = d.LoginMaxDelay
}

// loginsAtOnce sends the logins (e-mail and password) from the client addresses beside
// them all at once, and returns their answers in order.
func loginsAtOnce(t *testing.T, s *testServer, addrs []string, bodies []map[string]string) []*response {
	t.Helper()
	clients := map[string]*http.Client{}
	for _, a := range addrs {
		if clients[a] == nil {
			clients[a] = clientFrom(a)
		}
	}
	out := make([]*response, len(bodies))
	errs := make([]error, len(bodies))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, b := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, _ := json.Marshal(b)
			<-start
			res, err := clients[addrs[i]].Post(s.base+"/api/auth/login", "application/json", bytes.NewReader(raw))
			if err != nil {
				errs[i] = err
				return
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			out[i], errs[i] = &response{Status: res.StatusCode, Header: res.Header, Body: body}, err
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("login %d from %s: %v", i, addrs[i], err)
		}
	}
	return out
}

// repeat is n copies of v.
func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestConcurrentCorrectLoginsAllSucceed: fifty logins of one e-mail at once, all with
// the right password, are all answered 200 with the default limits: a login that
// succeeds spends no failure budget, also while others are being checked (issue: half
// of them were refused as "too many failed logins"). After them, both failure budgets
// are whole.
func TestConcurrentCorrectLoginsAllSucceed(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		mutate func(*Config)
		addrs  []string
	}{
		// Every limit at its default; ten logins from each of five addresses (the
		// default burst of requests per address on /api/auth/*).
		"five addresses": {defaultLimits, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"}},
		// All fifty from one address, with the login limits at their defaults; the
		// per-address request rate (--rate-auth), which is no failure limit and would
		// refuse beyond its burst of 10, is off.
		"one address": {func(c *Config) { defaultLimits(c); c.RateAuth = 0 }, []string{"127.0.0.2"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, tc.mutate)
			u := s.victim()
			var addrs []string
			for i := range 50 {
				addrs = append(addrs, tc.addrs[i%len(tc.addrs)])
			}
			for i, r := range loginsAtOnce(t, s, addrs, repeat(loginBody(u.Email, u.Password), 50)) {
				if r.Status != 200 {
					t.Errorf("login %d from %s: got %d %s; want 200", i, addrs[i], r.Status, r.Body)
				}
			}
			if t.Failed() {
				return
			}
			// The failure budget is whole: five failures are answered (its burst), the
			// sixth is refused. From one address, that is the address's budget; from
			// five, whose requests on /api/auth/* are spent, the e-mail's, from others.
			from := repeat(tc.addrs[0], 5)
			detail := "too many failed logins for this e-mail from this address;"
			if len(tc.addrs) > 1 {
				from = []string{"127.0.0.20", "127.0.0.21", "127.0.0.22", "127.0.0.23", "127.0.0.24"}
				detail = "too many failed logins for this e-mail;"
			}
			for _, a := range from {
				expect(t, doWith(t, clientFrom(a), s.base, req{method: "POST", path: "/api/auth/login",
					body: loginBody(u.Email, "wrong password")}), 401, "invalid_credentials")
			}
			r := doWith(t, clientFrom(from[0]), s.base, req{method: "POST", path: "/api/auth/login",
				body: loginBody(u.Email, "wrong password")})
			expect(t, r, 429, "rate_limited")
			var p problemBody
			r.decode(t, &p)
			if !strings.HasPrefix(p.Detail, detail) {
				t.Fatalf("got detail %q; want it to start %q", p.Detail, detail)
			}
		})
	}
}

// loginRefusal checks a login's 429: its detail starts with detail, and its
// Retry-After and RateLimit headers are those of the limit that refused: limit
// tokens, none left, a token back within retryMax seconds, full within resetMax.
func loginRefusal(t *testing.T, r *response, detail string, limit, retryMax, resetMax int) {
	t.Helper()
	expect(t, r, 429, "rate_limited")
	var p problemBody
	r.decode(t, &p)
	if !strings.HasPrefix(p.Detail, detail) {
		t.Fatalf("got detail %q; want it to start %q", p.Detail, detail)
	}
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || retry < 1 || retry > retryMax {
		t.Fatalf("got Retry-After %q; want 1..%d", r.Header.Get("Retry-After"), retryMax)
	}
	if got := r.Header.Get("RateLimit-Limit"); got != strconv.Itoa(limit) {
		t.Fatalf("got RateLimit-Limit %q; want %d, the refusing limit's", got, limit)
	}
	if got := r.Header.Get("RateLimit-Remaining"); got != "0" {
		t.Fatalf("got RateLimit-Remaining %q beside Retry-After %d; want 0", got, retry)
	}
	if reset, err := strconv.Atoi(r.Header.Get("RateLimit-Reset")); err != nil || reset < retry || reset > resetMax {
		t.Fatalf("got RateLimit-Reset %q; want %d..%d", r.Header.Get("RateLimit-Reset"), retry, resetMax)
	}
}

// TestLoginFailuresLimitedAsDocumented: with the default limits, failures are limited
// as README's "Login limits" says, and the 429 says which limit refused, with its
// figures: per e-mail and address, 5 failures and then 1 a minute; per e-mail over all
// addresses, 5 failures and then 10 a minute, after which an address that failed is
// refused (right password or not).
func TestLoginFailuresLimitedAsDocumented(t *testing.T) {
	t.Parallel()
	t.Run("per e-mail and address", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, defaultLimits)
		u := s.victim()
		c := clientFrom("127.0.0.2")
		for range 5 {
			expect(t, doWith(t, c, s.base, req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, "guess")}), 401, "invalid_credentials")
		}
		for _, pw := range []string{"guess", u.Password} {
			r := doWith(t, c, s.base, req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, pw)})
			// 1 a minute, burst 5: a token back within 60 s, full within 300 s.
			loginRefusal(t, r, "too many failed logins for this e-mail from this address;", 5, 60, 300)
		}
	})
	t.Run("per e-mail", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, defaultLimits)
		u := s.victim()
		addrs := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"}
		for _, a := range addrs {
			expect(t, doWith(t, clientFrom(a), s.base, req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, "guess")}), 401, "invalid_credentials")
		}
		for _, pw := range []string{"guess", u.Password} {
			r := doWith(t, clientFrom(addrs[0]), s.base, req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, pw)})
			// 10 a minute, burst 5: a token back within 6 s, full within 30 s.
			loginRefusal(t, r, "too many failed logins for this e-mail;", 5, 6, 30)
		}
	})
}

// TestOwnerLogsInAmidFailures: failures and correct logins of one e-mail mixed keep
// the owner logging in while the failures have not spent the budget: one wrong password,
// then eight correct logins at once (issue: four were refused); then twenty correct
// logins at once with three guesses among them: every login is 200, every guess 401;
// then, with one failure left, twenty correct logins at once.
func TestOwnerLogsInAmidFailures(t *testing.T) {
	t.Parallel()
	s := startServer(t, defaultLimits)
	u := s.victim()
	expect(t, doWith(t, clientFrom("127.0.0.2"), s.base, req{method: "POST", path: "/api/auth/login",
		body: loginBody(u.Email, "typo")}), 401, "invalid_credentials")
	for i, r := range loginsAtOnce(t, s, repeat("127.0.0.2", 8), repeat(loginBody(u.Email, u.Password), 8)) {
		if r.Status != 200 {
			t.Errorf("login %d after one failure: got %d %s; want 200", i, r.Status, r.Body)
		}
	}
	// The owner from two addresses (ten requests each: the burst per address on
	// /api/auth/*), three guessers among them.
	var addrs []string
	var bodies []map[string]string
	for i := range 20 {
		addrs = append(addrs, "127.0.0."+strconv.Itoa(3+i%2))
		bodies = append(bodies, loginBody(u.Email, u.Password))
		if i%7 == 3 {
			addrs = append(addrs, "127.0.0."+strconv.Itoa(10+i/7))
			bodies = append(bodies, loginBody(u.Email, "guess"))
		}
	}
	guesses := 0
	for i, r := range loginsAtOnce(t, s, addrs, bodies) {
		want := 200
		if bodies[i]["password"] == "guess" {
			want = 401
			guesses++
		}
		if r.Status != want {
			t.Errorf("login %d from %s: got %d %s; want %d", i, addrs[i], r.Status, r.Body, want)
		}
	}
	if guesses != 3 {
		t.Fatalf("sent %d guesses; want 3", guesses)
	}
	// Four failures of the e-mail's five: the budget is nearly spent, not spent. Twenty
	// correct logins at once take turns with the one token left, and all get in.
	for i, r := range loginsAtOnce(t, s, append(repeat("127.0.0.5", 10), repeat("127.0.0.6", 10)...),
		repeat(loginBody(u.Email, u.Password), 20)) {
		if r.Status != 200 {
			t.Errorf("login %d with one failure left: got %d %s; want 200", i, r.Status, r.Body)
		}
	}
}
