package limiter

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
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
	// KeyOwner is the requests made with API keys, per user the keys act as: every key
	// of one user draws from one bucket, whatever address it calls from, so a user
	// cannot multiply the rate by making keys or spreading a script over addresses.
	KeyOwner Limit
	// Login is the failed logins of one e-mail address from every client address
	// together; once failures spent it, LoginAttempt refuses the addresses that failed
	// for it and makes the others wait their turn (see LoginAttempt).
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
	BucketKeyOwner  = "key_owner"
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
	shards  []kit.Ref
	seed    maphash.Seed
	sweeper *kit.Loop
	// attempts numbers the login attempts, so that each names its reservation.
	attempts atomic.Uint64
	// waitMax is LoginWaitMax (shorter in tests).
	waitMax time.Duration
	// leases are the tokens taken ahead for keys' next requests (see lease.go).
	leases *leaseTable
}

// take asks for one token from each named bucket of key; all or none are taken. With
// Lease above 1 it asks for up to Lease tokens of each, at least one: the edge holds
// what it gets as a lease (see leases), and the reply is a grant.
type take struct {
	Key     string
	Buckets []string
	Lease   int
}

// grant is a shard's answer to a take with a Lease: the decision for the request that
// asked, and how many tokens of each bucket were taken (0 when refused).
type grant struct {
	Decision
	Tokens int
}

// sweep asks a shard to drop its idle buckets.
type sweep struct{}

// giveBack returns the unspent tokens of an expired lease of Key's Buckets.
type giveBack struct {
	Key     string
	Buckets []string
	Tokens  int
}

// Start spawns the limiter's shards on rt.
func Start(rt *kit.Runtime, opts LimitOptions) *Limiter {
	if opts.Shards <= 0 {
		opts.Shards = 4
	}
	l := &Limiter{rt: rt, opts: opts, seed: maphash.MakeSeed(), waitMax: LoginWaitMax, leases: newLeaseTable()}
	for i := 0; i < opts.Shards; i++ {
		shard, err := rt.Spawn(fmt.Sprintf("limiter-%d", i), func() kit.Actor {
			return newShard(opts, rt.Clock.Now)
		})
		if err != nil {
			panic(fmt.Sprintf("actors: spawn limiter: %v", err))
		}
		l.shards = append(l.shards, shard)
	}
	l.sweeper = kit.Every(rt.Clock, rt.Log, "limiter sweep", time.Minute, false, func(context.Context, time.Time) {
		for _, shard := range l.shards {
			rt.Send(shard, &sweep{})
		}
		l.leases.sweep(rt.Clock.Now(), l.giveBack)
	})
	return l
}

// Stop ends the limiter's idle sweep; the shards stop with the runtime.
func (l *Limiter) Stop() { l.sweeper.Stop() }

// Options returns the limits in force.
func (l *Limiter) Options() LimitOptions { return l.opts }

// Take takes one token from each enabled bucket of key. With no enabled bucket it
// allows at once without a round trip; when the buckets' bursts allow a lease
// (leaseSize), the token comes from key's lease, and a shard is asked only for the
// next lease.
func (l *Limiter) Take(ctx context.Context, key string, buckets ...string) (Decision, error) {
	// The buckets as given when all are enabled (the usual case: no copy).
	enabled := buckets
	for _, b := range buckets {
		if !l.limit(b).Enabled() {
			enabled = nil
			for _, b := range buckets {
				if l.limit(b).Enabled() {
					enabled = append(enabled, b)
				}
			}
			break
		}
	}
	if len(enabled) == 0 {
		return Decision{Allowed: true}, nil
	}
	shard := l.shardOf(key)
	n := l.opts.leaseSize(enabled)
	if n <= 1 {
		return kit.AskRef[Decision](ctx, l.rt, shard, &take{Key: key, Buckets: enabled})
	}
	id := leaseOf(key, enabled)
	now := l.rt.Clock.Now()
	for {
		d, ok, stale, wait := l.leases.spend(id, now)
		if ok {
			return d, nil
		}
		// Sent before the ask, so the shard has the tokens back when it answers it.
		l.giveBack(id, stale)
		if wait == nil {
			break
		}
		select {
		case <-wait:
		case <-ctx.Done():
			// As an ask would have ended.
			if ctx.Err() != context.DeadlineExceeded {
				return Decision{}, apierr.New(apierr.ErrUnavailable, "the request was cancelled")
			}
			return Decision{}, apierr.New(apierr.ErrTimeout, "the request did not finish in time")
		}
	}
	defer l.leases.asked(id)
	g, err := kit.AskRef[grant](ctx, l.rt, shard, &take{Key: key, Buckets: enabled, Lease: n})
	if err != nil || g.Tokens <= 1 {
		return g.Decision, err
	}
	perSec := l.limit(g.Bucket).perSecond()
	l.giveBack(id, l.leases.add(id, g.Decision, g.Tokens-1, perSec, now))
	first := lease{left: g.Tokens - 1, d: g.Decision, perSec: perSec}
	return first.decision(), nil
}

// giveBack returns n unspent tokens of lease id to its buckets' shard.
func (l *Limiter) giveBack(id leaseID, n int) {
	if n <= 0 {
		return
	}
	l.rt.Send(l.shardOf(id.key), &giveBack{Key: id.key, Buckets: strings.Split(id.buckets, ","), Tokens: n})
}

// shardOf is the shard holding key's buckets.
func (l *Limiter) shardOf(key string) kit.Ref {
	return l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
}

func (l *Limiter) limit(name string) Limit { return l.opts.limit(name) }

func (o LimitOptions) limit(name string) Limit {
	switch name {
	case BucketGlobal:
		return o.Global
	case BucketAuth:
		return o.Auth
	case BucketKeyOwner:
		return o.KeyOwner
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
	// reserved counts the login attempts admitted against this bucket whose outcome is
	// not known yet (login buckets only); a bucket holding any is never swept.
	reserved int
}

type limiterShard struct {
	opts    LimitOptions
	buckets map[string]*bucket
	now     func() time.Time
	// admitted are the login attempts holding a reservation, by id.
	admitted map[uint64]admitted
	// waiting are the login attempts of each e-mail waiting for a reservation, in
	// arrival order (see LoginAttempt).
	waiting map[string][]*waiter
}

func newShard(opts LimitOptions, now func() time.Time) *limiterShard {
	return &limiterShard{opts: opts, buckets: map[string]*bucket{}, now: now,
		admitted: map[uint64]admitted{}, waiting: map[string][]*waiter{}}
}

func (s *limiterShard) Receive(ctx *kit.Ctx, msg any) {
	switch m := msg.(type) {
	case *take:
		if m.Lease > 1 {
			d, n := s.takeN(m)
			ctx.Respond(grant{d, n})
		} else {
			ctx.Respond(s.take(m))
		}
	case *loginTake:
		if d, wait := s.loginTake(m, 0); !wait {
			ctx.Respond(d)
		} else {
			// Answered later, when a reservation of the e-mail is given back or spent.
			s.waiting[m.Email] = append(s.waiting[m.Email], &waiter{m: m, reply: ctx.Later(), since: s.now()})
		}
	case *loginDone:
		s.loginDone(m)
		s.wake(m.Email, func(w *waiter, d LoginDecision) { w.reply.Respond(d) })
	case *giveBack:
		s.giveBack(m)
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
		if b.reserved == 0 && (!lim.Enabled() || b.tokens+now.Sub(b.last).Seconds()*lim.perSecond() >= lim.burst()) {
			delete(s.buckets, k)
		}
	}
}

// giveBack puts an expired lease's unspent tokens back into its buckets, refilled to
// now first and never above the burst: as if they had never left. A bucket swept
// since was full, and stays so.
func (s *limiterShard) giveBack(m *giveBack) {
	now := s.now()
	for _, name := range m.Buckets {
		b, ok := s.buckets[name+"|"+m.Key]
		if !ok {
			continue
		}
		lim := s.opts.limit(name)
		b.tokens = math.Min(lim.burst(), b.tokens+now.Sub(b.last).Seconds()*lim.perSecond()+float64(m.Tokens))
		b.last = now
	}
}

func (s *limiterShard) take(m *take) Decision {
	d, _ := s.takeN(m)
	return d
}

// takeN takes up to max(m.Lease, 1) tokens from each of m's buckets, as many as the
// emptiest of them holds whole, or none when one holds less than one; the decision's
// figures are the buckets' after the take.
func (s *limiterShard) takeN(m *take) (Decision, int) {
	now := s.now()
	type state struct {
		b   *bucket
		lim Limit
	}
	states := make([]state, 0, len(m.Buckets))
	allowed := true
	n := float64(max(m.Lease, 1))
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
		n = math.Min(n, math.Floor(b.tokens))
		states = append(states, state{b, lim})
	}
	var d Decision
	d.Allowed = allowed
	first := true
	for i, st := range states {
		if allowed {
			st.b.tokens -= n
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
	if !d.Allowed {
		d.RetryAfterS = max(d.RetryAfterS, 1)
		return d, 0
	}
	return d, int(n)
}
