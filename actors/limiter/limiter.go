package limiter

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/vmplane/vmplane/actors/kit"
)

// Limit is one token-bucket rule: Rate tokens per Per, holding at most Burst.
// A zero Rate disables the rule.
type Limit struct {
	Rate  float64
	Per   time.Duration
	Burst int
}

// Enabled reports whether the rule limits anything.
func (l Limit) Enabled() bool { return l.Rate > 0 && l.Per > 0 }

func (l Limit) perSecond() float64 { return l.Rate / l.Per.Seconds() }

func (l Limit) burst() float64 {
	if l.Burst > 0 {
		return float64(l.Burst)
	}
	return math.Max(1, math.Ceil(l.Rate))
}

// LimitOptions are the rate limits of the API contract.
type LimitOptions struct {
	Global Limit // every request, per client address
	Auth   Limit // /api/auth/*, per client address
	// Login is the failed logins of one e-mail address from every client address
	// together; once spent, LoginAttempt refuses the addresses that failed for it and
	// makes the others wait their turn (see LoginAttempt).
	Login Limit
	// LoginAddr is the failed logins of one e-mail address from one client address,
	// refused beyond.
	LoginAddr Limit
	// LoginMaxDelay is the longest a login from a client address with no failures for
	// its e-mail waits while the e-mail's budget is spent; beyond it, it is refused.
	LoginMaxDelay time.Duration
	// Shards is the number of limiter actors (default 4): one mailbox serialises its
	// buckets, so several spread the decisions over cores.
	Shards int
}

// Bucket names.
const (
	BucketGlobal    = "global"
	BucketAuth      = "auth"
	BucketLogin     = "login"
	BucketLoginAddr = "login_addr"
)

// Decision is the limiter's answer for one request.
type Decision struct {
	Allowed bool
	// The figures of the most restrictive bucket consulted, for the RateLimit headers.
	Limit       int
	Remaining   int
	ResetS      int
	RetryAfterS int
	Bucket      string
}

// Limiter decides whether a request may go on. Its buckets live in sharded actors;
// all buckets of one key are in one shard, so a request's buckets are taken atomically.
type Limiter struct {
	rt      *kit.Runtime
	opts    LimitOptions
	shards  []*actor.PID
	seed    maphash.Seed
	sweeper *kit.Loop
}

// take asks for one token from each named bucket of key; all or none are taken.
type take struct {
	Key     string
	Buckets []string
}

// sweep asks a shard to drop its idle buckets.
type sweep struct{}

// StartLimiter spawns the limiter's shards on rt.
func Start(rt *kit.Runtime, opts LimitOptions) *Limiter {
	if opts.Shards <= 0 {
		opts.Shards = 4
	}
	l := &Limiter{rt: rt, opts: opts, seed: maphash.MakeSeed()}
	for i := 0; i < opts.Shards; i++ {
		pid, err := rt.Spawn(fmt.Sprintf("limiter-%d", i), func() actor.Actor {
			return &limiterShard{opts: opts, buckets: map[string]*bucket{}, now: rt.Clock.Now}
		})
		if err != nil {
			panic(fmt.Sprintf("actors: spawn limiter: %v", err))
		}
		l.shards = append(l.shards, pid)
	}
	l.sweeper = kit.Every(rt.Clock, rt.Log, "limiter sweep", time.Minute, false, func(context.Context, time.Time) {
		for _, pid := range l.shards {
			rt.Send(pid, &sweep{})
		}
	})
	return l
}

// Stop ends the limiter's idle sweep; the shards stop with the runtime.
func (l *Limiter) Stop() { l.sweeper.Stop() }

// Options returns the limits in force.
func (l *Limiter) Options() LimitOptions { return l.opts }

// Take takes one token from each enabled bucket of key. With no enabled bucket it
// allows at once without a round trip.
func (l *Limiter) Take(ctx context.Context, key string, buckets ...string) (Decision, error) {
	enabled := buckets[:0:0]
	for _, b := range buckets {
		if l.limit(b).Enabled() {
			enabled = append(enabled, b)
		}
	}
	if len(enabled) == 0 {
		return Decision{Allowed: true}, nil
	}
	shard := l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	return kit.AskPID[Decision](ctx, l.rt, shard, &take{Key: key, Buckets: enabled})
}

func (l *Limiter) limit(name string) Limit { return l.opts.limit(name) }

func (o LimitOptions) limit(name string) Limit {
	switch name {
	case BucketGlobal:
		return o.Global
	case BucketAuth:
		return o.Auth
	case BucketLogin:
		return o.Login
	case BucketLoginAddr:
		return o.LoginAddr
	}
	return Limit{}
}

type bucket struct {
	tokens float64
	last   time.Time
}

type limiterShard struct {
	opts    LimitOptions
	buckets map[string]*bucket
	now     func() time.Time
}

func (s *limiterShard) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *take:
		ctx.Respond(s.take(m))
	case *loginTake:
		ctx.Respond(s.loginTake(m))
	case *loginSucceeded:
		s.loginSucceeded(m)
	case *sweep:
		s.sweep()
	}
}

// sweep drops buckets that have refilled completely: they hold no information, and
// dropping them bounds memory by the number of recently active clients.
func (s *limiterShard) sweep() {
	now := s.now()
	for k, b := range s.buckets {
		name, _, _ := strings.Cut(k, "|")
		lim := s.opts.limit(name)
		if !lim.Enabled() || b.tokens+now.Sub(b.last).Seconds()*lim.perSecond() >= lim.burst() {
			delete(s.buckets, k)
		}
	}
}

func (s *limiterShard) take(m *take) Decision {
	now := s.now()
	type state struct {
		b   *bucket
		lim Limit
	}
	states := make([]state, 0, len(m.Buckets))
	allowed := true
	for _, name := range m.Buckets {
		lim := s.opts.limit(name)
		k := name + "|" + m.Key
		b, ok := s.buckets[k]
		if !ok {
			b = &bucket{tokens: lim.burst(), last: now}
			s.buckets[k] = b
		}
		// Refill for the time since the last look.
		b.tokens = math.Min(lim.burst(), b.tokens+now.Sub(b.last).Seconds()*lim.perSecond())
		b.last = now
		if b.tokens < 1 {
			allowed = false
		}
		states = append(states, state{b, lim})
	}
	var d Decision
	d.Allowed = allowed
	first := true
	for i, st := range states {
		if allowed {
			st.b.tokens--
		}
		remaining := int(math.Floor(st.b.tokens))
		reset := int(math.Ceil((st.lim.burst() - st.b.tokens) / st.lim.perSecond()))
		retry := 0
		if st.b.tokens < 1 {
			retry = int(math.Ceil((1 - st.b.tokens) / st.lim.perSecond()))
		}
		// Report the most restrictive bucket: the one a client will hit first.
		if first || remaining < d.Remaining || retry > d.RetryAfterS {
			d.Limit, d.Remaining, d.ResetS, d.RetryAfterS, d.Bucket = int(st.lim.burst()), remaining, reset, retry, m.Buckets[i]
			first = false
		}
	}
	if !d.Allowed && d.RetryAfterS < 1 {
		d.RetryAfterS = 1
	}
	return d
}

// LoginDecision is the limiter's answer for one login attempt.
type LoginDecision struct {
	Decision
	// Delay is how long the attempt waits before its password is checked.
	Delay time.Duration
}

// loginTake asks for one login attempt of an e-mail from a client address.
type loginTake struct{ Email, Addr string }

// loginSucceeded gives back what a successful login took (see LoginSucceeded).
type loginSucceeded struct{ Email, Addr string }

// LoginAttempt decides whether a login for email (normalised: NormalizeEmail) from
// the client address addr may have its password checked, and after what delay. Two
// budgets of failures count against it:
//
//   - per e-mail and address (LoginAddr): an address that spent it is refused;
//   - per e-mail over all addresses (Login): while there is budget, an attempt goes
//     on at once. Once it is spent someone is guessing: an address that has failed for
//     this e-mail lately (its LoginAddr bucket is not full) is refused, and an address
//     that has not is let through after a delay, in turn: each such attempt borrows
//     the e-mail's next token and waits until it would have refilled, so the delay
//     grows with the attempts queued before it. One whose delay would exceed
//     LoginMaxDelay is refused. An address let through this way spends its whole
//     LoginAddr budget for the e-mail.
//
// So guessing is bounded per address (LoginAddr) and, across any number of addresses
// and spellings, per e-mail (Login, plus what LoginMaxDelay can queue), while the
// owner, from an address that has not failed, still gets to try its password. Every
// attempt takes from both budgets; LoginSucceeded gives them back.
func (l *Limiter) LoginAttempt(ctx context.Context, email, addr string) (LoginDecision, error) {
	if !l.opts.Login.Enabled() && !l.opts.LoginAddr.Enabled() {
		return LoginDecision{Decision: Decision{Allowed: true}}, nil
	}
	return kit.AskPID[LoginDecision](ctx, l.rt, l.loginShard(email), &loginTake{Email: email, Addr: addr})
}

// LoginSucceeded records that a login admitted by LoginAttempt had the right password:
// it was not a guess. The e-mail's token is given back and the address's failures for
// it are forgotten.
func (l *Limiter) LoginSucceeded(email, addr string) {
	if !l.opts.Login.Enabled() && !l.opts.LoginAddr.Enabled() {
		return
	}
	l.rt.Send(l.loginShard(email), &loginSucceeded{Email: email, Addr: addr})
}

// loginShard is the shard of every login bucket of email, so that one decision sees
// them all.
func (l *Limiter) loginShard(email string) *actor.PID {
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

// refusal is the 429 of a login bucket: retry once it holds a token again.
func refusal(lim Limit, b *bucket) LoginDecision {
	retry := int(math.Ceil((1 - b.tokens) / lim.perSecond()))
	return LoginDecision{Decision: Decision{Allowed: false, Limit: int(lim.burst()), Remaining: 0,
		ResetS: int(math.Ceil((lim.burst() - b.tokens) / lim.perSecond())), RetryAfterS: max(retry, 1), Bucket: BucketLogin}}
}

func (s *limiterShard) loginTake(m *loginTake) LoginDecision {
	now := s.now()
	emailKey, addrKey := loginKeys(m.Email, m.Addr)
	emailLim, addrLim := s.opts.Login, s.opts.LoginAddr
	var eb, ab *bucket
	clean := true // the address has no recent failures for this e-mail
	if addrLim.Enabled() {
		ab = s.refilled(addrKey, addrLim, now)
		if ab.tokens < 1 {
			return refusal(addrLim, ab)
		}
		clean = ab.tokens >= addrLim.burst()
	}
	take := func(delay time.Duration) LoginDecision {
		if ab != nil {
			ab.tokens--
			if delay > 0 {
				// Let through the queue, the address spends its whole budget for the
				// e-mail: it is refused until a token refills and waits for its whole
				// budget to refill before it counts as clean again, so that keeping
				// the queue full takes many addresses, not two taking turns.
				ab.tokens = 0
			}
		}
		if eb != nil {
			eb.tokens--
		}
		return LoginDecision{Decision: Decision{Allowed: true}, Delay: delay}
	}
	if !emailLim.Enabled() {
		return take(0)
	}
	eb = s.refilled(emailKey, emailLim, now)
	if eb.tokens >= 1 {
		return take(0)
	}
	// The e-mail's budget is spent.
	if !clean {
		return refusal(emailLim, eb)
	}
	wait := time.Duration((1 - eb.tokens) / emailLim.perSecond() * float64(time.Second))
	if wait > s.opts.LoginMaxDelay {
		d := refusal(emailLim, eb)
		d.RetryAfterS = max(1, int(math.Ceil((wait - s.opts.LoginMaxDelay).Seconds())))
		return d
	}
	return take(wait)
}

func (s *limiterShard) loginSucceeded(m *loginSucceeded) {
	now := s.now()
	emailKey, addrKey := loginKeys(m.Email, m.Addr)
	delete(s.buckets, addrKey)
	if lim := s.opts.Login; lim.Enabled() {
		b := s.refilled(emailKey, lim, now)
		b.tokens = math.Min(lim.burst(), b.tokens+1)
	}
}
