package limiter

import (
	"context"
	"hash/maphash"
	"math"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
)

// LoginWaitMax is the longest a login attempt waits for a reservation while the
// attempts of its e-mail (or of its e-mail and address) already being checked hold the
// whole failure budget that is left; beyond it, it is refused as busy. It leaves the
// password check time within the edge's 15 s per request.
const LoginWaitMax = 10 * time.Second

// LoginRefusal says why a login attempt was refused.
type LoginRefusal int

// Reasons of a refused login attempt.
const (
	// NotRefused: the attempt was admitted.
	NotRefused LoginRefusal = iota
	// RefusedAddrFailures: the failures for the e-mail from this client address spent
	// their budget (LoginAddr).
	RefusedAddrFailures
	// RefusedEmailFailures: the failures for the e-mail from all addresses spent their
	// budget (Login), and this address failed for it lately.
	RefusedEmailFailures
	// RefusedQueueFull: the failures for the e-mail spent their budget, and the queue
	// of the attempts from addresses without failures is longer than LoginMaxDelay.
	RefusedQueueFull
	// RefusedBusy: the attempts of the e-mail already being checked held the failure
	// budget that is left for longer than LoginWaitMax. No failure refused it.
	RefusedBusy
)

// LoginOutcome is how an admitted login attempt ended (LoginDone).
type LoginOutcome int

// Outcomes of an admitted login attempt.
const (
	// LoginAbandoned: the password was not checked (the request ended first).
	LoginAbandoned LoginOutcome = iota
	// LoginFailed: the password was checked and the login did not succeed; it spends
	// the reservation as a failure.
	LoginFailed
	// LoginSucceeded: the password was right; the reservation is given back and the
	// address's failures for the e-mail are forgotten.
	LoginSucceeded
)

// LoginTicket names the reservation of an admitted login attempt (the zero ticket
// names none).
type LoginTicket struct {
	email, addr string
	id          uint64
}

// LoginDecision is the limiter's answer for one login attempt.
type LoginDecision struct {
	// Decision's figures are those of the bucket that refused, for the RateLimit
	// headers of a 429.
	Decision
	// Delay is how long the attempt waits before its password is checked.
	Delay time.Duration
	// Refusal says why a refused attempt was refused.
	Refusal LoginRefusal
	// Ticket is the admitted attempt's reservation, to end with LoginDone.
	Ticket LoginTicket
}

// loginTake asks for one login attempt of an e-mail from a client address.
type loginTake struct {
	ID          uint64
	Email, Addr string
}

// loginDone ends a login attempt: it gives back or spends its reservation, or, when
// it is still waiting for one, withdraws it.
type loginDone struct {
	ID          uint64
	Email, Addr string
	Outcome     LoginOutcome
}

// admitted is a login attempt holding a reservation.
type admitted struct{ email, addr string }

// waiter is a login attempt waiting for a reservation, answered when it gets one.
type waiter struct {
	m     *loginTake
	reply kit.Reply
	since time.Time
}

// LoginAttempt decides whether a login for email (normalised: NormalizeEmail) from
// the client address addr may have its password checked, and after what delay. Only
// failures count, against two budgets:
//
//   - per e-mail and address (LoginAddr): an address whose failures spent it is refused;
//   - per e-mail over all addresses (Login): while failures have left budget, an
//     attempt goes on at once. Once they spent it someone is guessing: an address that
//     has failed for this e-mail lately (its LoginAddr bucket is not full) is refused,
//     and an address that has not is let through after a delay, in turn: each such
//     attempt borrows the e-mail's next token and waits until it would have refilled,
//     so the delay grows with the attempts queued before it. One whose delay would
//     exceed LoginMaxDelay is refused. An address let through this way spends its
//     whole LoginAddr budget for the e-mail.
//
// An admitted attempt holds a reservation of one token in each budget until its
// outcome is known (LoginDone): a success gives it back, a failure spends it. So the
// attempts being checked at once never outnumber the failures the budgets have left,
// and an attempt for which only reservations, not failures, leave no budget waits
// (at most LoginWaitMax) until one is given back or spent, instead of being refused.
// Many correct logins of one e-mail at once all go through.
//
// So guessing is bounded per address (LoginAddr) and, across any number of addresses
// and spellings, per e-mail (Login, plus what LoginMaxDelay can queue), while the
// owner, from an address that has not failed, still gets to try its password.
//
// Every admitted attempt must be ended with LoginDone.
func (l *Limiter) LoginAttempt(ctx context.Context, email, addr string) (LoginDecision, error) {
	if !l.opts.Login.Enabled() && !l.opts.LoginAddr.Enabled() {
		return LoginDecision{Decision: Decision{Allowed: true}}, nil
	}
	m := &loginTake{ID: l.attempts.Add(1), Email: email, Addr: addr}
	shard := l.loginShard(email)
	wctx, cancel := context.WithTimeout(ctx, l.waitMax)
	defer cancel()
	d, err := kit.AskRef[LoginDecision](wctx, l.rt, shard, m)
	if err != nil {
		// The attempt still waits, or was admitted as the wait ended: either way it is
		// over, and what it holds is given back.
		l.rt.Send(shard, &loginDone{ID: m.ID, Email: email, Addr: addr, Outcome: LoginAbandoned})
		if ctx.Err() == nil && wctx.Err() != nil {
			return l.busy(), nil
		}
		return LoginDecision{}, err
	}
	return d, nil
}

// busy is the refusal of an attempt that waited LoginWaitMax for a reservation.
func (l *Limiter) busy() LoginDecision {
	lim, bucket := l.opts.Login, BucketLogin
	if !lim.Enabled() {
		lim, bucket = l.opts.LoginAddr, BucketLoginAddr
	}
	return LoginDecision{Decision: Decision{Limit: int(lim.burst()), ResetS: 1, RetryAfterS: 1, Bucket: bucket},
		Refusal: RefusedBusy}
}

// LoginDone ends a login attempt that LoginAttempt admitted, with its outcome: a
// success gives back its reservations and forgets the address's failures for the
// e-mail, a failure spends them, an abandoned attempt gives them back. A zero ticket
// (the limits are off) is nothing to end.
func (l *Limiter) LoginDone(t LoginTicket, outcome LoginOutcome) {
	if t.id == 0 {
		return
	}
	l.rt.Send(l.loginShard(t.email), &loginDone{ID: t.id, Email: t.email, Addr: t.addr, Outcome: outcome})
}

// loginShard is the shard of every login bucket of email, so that one decision sees
// them all.
func (l *Limiter) loginShard(email string) kit.Ref {
	return l.shards[maphash.String(l.seed, "login|"+email)%uint64(len(l.shards))]
}

// refilled returns the bucket under key, created full, refilled for the time since
// it was last looked at.
func (s *limiterShard) refilled(key string, lim Limit, now time.Time) *bucket {
	b, ok := s.buckets[key]
	if !ok {
		b = &bucket{tokens: lim.burst(), last: now}
		s.buckets[key] = b
	}
	b.tokens = math.Min(lim.burst(), b.tokens+now.Sub(b.last).Seconds()*lim.perSecond())
	b.last = now
	return b
}

func loginKeys(email, addr string) (emailKey, addrKey string) {
	return BucketLogin + "|" + email, BucketLoginAddr + "|" + email + "|" + addr
}

// refusal is the 429 of a login bucket that failures spent: retry once it holds a
// token again.
func refusal(why LoginRefusal, name string, lim Limit, b *bucket) LoginDecision {
	retry := int(math.Ceil((1 - b.tokens) / lim.perSecond()))
	return LoginDecision{Decision: Decision{Allowed: false, Limit: int(lim.burst()), Remaining: 0,
		ResetS: int(math.Ceil((lim.burst() - b.tokens) / lim.perSecond())), RetryAfterS: max(retry, 1), Bucket: name},
		Refusal: why}
}

// available is what b has left for another attempt: its tokens less the reservations
// of the attempts being checked.
func (b *bucket) available() float64 { return b.tokens - float64(b.reserved) }

// loginTake decides on m (see LoginAttempt); waited is how long it has waited for a
// reservation already. wait reports that it must wait for one: the shard answers it
// when a reservation of the e-mail is given back or spent (wake).
func (s *limiterShard) loginTake(m *loginTake, waited time.Duration) (d LoginDecision, wait bool) {
	now := s.now()
	emailKey, addrKey := loginKeys(m.Email, m.Addr)
	emailLim, addrLim := s.opts.Login, s.opts.LoginAddr
	var eb, ab *bucket
	clean := true // the address has no recent failures for this e-mail
	if addrLim.Enabled() {
		ab = s.refilled(addrKey, addrLim, now)
		if ab.tokens < 1 {
			return refusal(RefusedAddrFailures, BucketLoginAddr, addrLim, ab), false
		}
		clean = ab.tokens >= addrLim.burst()
	}
	spent := false // failures spent the e-mail's budget
	if emailLim.Enabled() {
		eb = s.refilled(emailKey, emailLim, now)
		spent = eb.tokens < 1
		if spent && !clean {
			return refusal(RefusedEmailFailures, BucketLogin, emailLim, eb), false
		}
	}
	// Budget that failures left but attempts being checked hold: wait for their outcome.
	if (ab != nil && ab.available() < 1) || (eb != nil && !spent && eb.available() < 1) {
		return LoginDecision{}, true
	}
	admit := func(delay time.Duration) (LoginDecision, bool) {
		if ab != nil {
			if delay > 0 {
				// Let through the queue, the address spends its whole budget for the
				// e-mail (what is left is this attempt's reservation): it is refused
				// until a token refills and waits for its whole budget to refill before
				// it counts as clean again, so that keeping the queue full takes many
				// addresses, not two taking turns. A success forgives it.
				ab.tokens = math.Min(ab.tokens, 1)
			}
			ab.reserved++
		}
		if eb != nil {
			eb.reserved++
		}
		s.admitted[m.ID] = admitted{email: m.Email, addr: m.Addr}
		return LoginDecision{Decision: Decision{Allowed: true}, Delay: delay,
			Ticket: LoginTicket{email: m.Email, addr: m.Addr, id: m.ID}}, false
	}
	if !spent {
		return admit(0)
	}
	// Failures spent the e-mail's budget, and this address is clean: it borrows the
	// next token after those the attempts in flight hold.
	delay := time.Duration((1 - eb.available()) / emailLim.perSecond() * float64(time.Second))
	if most := max(s.opts.LoginMaxDelay-waited, 0); delay > most {
		d := refusal(RefusedQueueFull, BucketLogin, emailLim, eb)
		d.RetryAfterS = max(1, int(math.Ceil((delay - most).Seconds())))
		return d, false
	}
	return admit(delay)
}

// loginDone ends an attempt: what it holds is given back or, for a failure, spent; an
// attempt still waiting is withdrawn.
func (s *limiterShard) loginDone(m *loginDone) {
	a, ok := s.admitted[m.ID]
	if !ok {
		q := s.waiting[m.Email]
		for i, w := range q {
			if w.m.ID == m.ID {
				s.waiting[m.Email] = append(q[:i:i], q[i+1:]...)
				break
			}
		}
		if len(s.waiting[m.Email]) == 0 {
			delete(s.waiting, m.Email)
		}
		return
	}
	delete(s.admitted, m.ID)
	now := s.now()
	emailKey, addrKey := loginKeys(a.email, a.addr)
	end := func(key string, lim Limit) *bucket {
		if _, ok := s.buckets[key]; !ok || !lim.Enabled() {
			return nil
		}
		b := s.refilled(key, lim, now)
		b.reserved--
		if m.Outcome == LoginFailed {
			b.tokens--
		}
		return b
	}
	end(emailKey, s.opts.Login)
	if ab := end(addrKey, s.opts.LoginAddr); ab != nil && m.Outcome == LoginSucceeded {
		ab.tokens = s.opts.LoginAddr.burst()
	}
}

// wake answers the attempts of email that wait for a reservation and no longer need
// to, in arrival order, through send.
func (s *limiterShard) wake(email string, send func(*waiter, LoginDecision)) {
	q := s.waiting[email]
	if len(q) == 0 {
		return
	}
	now := s.now()
	kept := q[:0]
	for _, w := range q {
		d, wait := s.loginTake(w.m, now.Sub(w.since))
		if wait {
			kept = append(kept, w)
			continue
		}
		send(w, d)
	}
	clear(q[len(kept):])
	if len(kept) == 0 {
		delete(s.waiting, email)
	} else {
		s.waiting[email] = kept
	}
}
