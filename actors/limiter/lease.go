package limiter

import (
	"hash/maphash"
	"math"
	"strings"
	"sync"
	"time"
)

// Leases: the shards own the buckets, and every token is taken there, but a request
// need not ask a shard for its own token. Take asks for a batch (a lease) of tokens of
// a key's buckets at once and hands them to that key's next requests without a round
// trip, asking again once they are used up. An actor round trip per request was the
// largest cost of an authenticated read at the edge (BENCHMARKS.md, issue 33).
//
// The limits hold: a leased token was taken from its bucket, so a client is refused
// at the same count as without leases; what a lease changes is when the tokens leave
// the bucket (earlier), and the RateLimit headers, which count the lease's tokens as
// the client's remaining. A lease not used within leaseTTL is dropped, so that a lease
// taken long ago is never spent on top of a bucket that has refilled since, and its
// unspent tokens go back to their buckets (never above the burst): a client that
// pauses loses nothing of its burst. Without that, a client of a slowly refilling
// bucket that sent one request now and then lost a lease each time, and found its
// burst gone when it needed it.

// leaseTTL is how long a lease's tokens may be spent after they were taken.
const leaseTTL = time.Second

// maxLease bounds the tokens of one lease.
const maxLease = 64

// leaseShards spreads the leases over locks, so that requests of different clients
// seldom wait for one another.
const leaseShards = 16

// leaseSize is the tokens a lease of the buckets named takes: an eighth of the
// smallest burst among them (at most maxLease), so that a dropped lease costs a
// client little of its burst. 1 means no lease: every request asks its shard, as the
// authentication bucket's (a burst of 10 by default) do.
func (o LimitOptions) leaseSize(buckets []string) int {
	n := maxLease
	for _, b := range buckets {
		n = min(n, int(o.limit(b).burst()/8))
	}
	return max(n, 1)
}

// lease is the tokens of one key's buckets held at the edge.
type lease struct {
	// left are the tokens not handed out yet.
	left int
	// d is the shard's decision when the tokens were taken: the buckets' figures then,
	// without the lease's tokens.
	d       Decision
	perSec  float64
	expires time.Time
}

// leaseTable holds the leases of a Limiter, by bucket names and key.
type leaseTable struct {
	seed   maphash.Seed
	shards [leaseShards]leaseShard
}

// leaseID names the lease of a key's buckets (their names, joined by commas when
// several: one name costs no allocation).
type leaseID struct{ buckets, key string }

type leaseShard struct {
	mu sync.Mutex
	m  map[leaseID]*lease
	// asking are the leases a request is asking a shard for, each closed when the
	// answer is in the table: a key's concurrent requests wait for it rather than
	// each taking a lease, which drained the bucket into leases while others were
	// refused (fifty logins at once from one address, some refused at a burst of 100).
	asking map[leaseID]chan struct{}
}

func newLeaseTable() *leaseTable {
	t := &leaseTable{seed: maphash.MakeSeed()}
	for i := range t.shards {
		t.shards[i].m = map[leaseID]*lease{}
		t.shards[i].asking = map[leaseID]chan struct{}{}
	}
	return t
}

// leaseOf names the lease of key's buckets.
func leaseOf(key string, buckets []string) leaseID {
	if len(buckets) == 1 {
		return leaseID{buckets[0], key}
	}
	return leaseID{strings.Join(buckets, ","), key}
}

func (t *leaseTable) shard(k leaseID) *leaseShard {
	return &t.shards[maphash.String(t.seed, k.key)%leaseShards]
}

// spend hands out one token of k's lease, if it holds one still valid at now. A lease
// it finds expired is dropped, and its unspent tokens are returned as stale, for the
// caller to give back to their buckets. Without a token, wait is the answer another
// request of k is waiting for, to wait for and spend again; when it is nil the caller
// asks for the lease itself and must call asked(k) once it is in the table (or not).
func (t *leaseTable) spend(k leaseID, now time.Time) (d Decision, ok bool, stale int, wait <-chan struct{}) {
	sh := t.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if l, held := sh.m[k]; held {
		if l.left > 0 && now.Before(l.expires) {
			l.left--
			return l.decision(), true, 0, nil
		}
		delete(sh.m, k)
		stale = l.left
	}
	if ch, asking := sh.asking[k]; asking {
		return Decision{}, false, stale, ch
	}
	sh.asking[k] = make(chan struct{})
	return Decision{}, false, stale, nil
}

// asked ends the ask for k's lease spend began, waking the requests that wait for it.
func (t *leaseTable) asked(k leaseID) {
	sh := t.shard(k)
	sh.mu.Lock()
	ch := sh.asking[k]
	delete(sh.asking, k)
	sh.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// add keeps tokens (taken for k with decision d at now) as k's lease, with what is
// left of a lease taken at the same time by another request of the same key; an
// expired lease it replaces is returned as stale, as by spend.
func (t *leaseTable) add(k leaseID, d Decision, tokens int, perSec float64, now time.Time) (stale int) {
	sh := t.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if l, ok := sh.m[k]; ok {
		if now.Before(l.expires) {
			tokens += l.left
		} else {
			stale = l.left
		}
	}
	sh.m[k] = &lease{left: tokens, d: d, perSec: perSec, expires: now.Add(leaseTTL)}
	return stale
}

// decision is the answer for a request served from the lease: the client's remaining
// tokens are the bucket's and the lease's.
func (l *lease) decision() Decision {
	d := l.d
	d.Remaining += l.left
	if l.perSec > 0 {
		d.ResetS = int(math.Ceil(float64(d.Limit-d.Remaining) / l.perSec))
	}
	return d
}

// sweep drops the expired leases, handing each one's unspent tokens to giveBack.
func (t *leaseTable) sweep(now time.Time, giveBack func(leaseID, int)) {
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		var stale []*lease
		var ids []leaseID
		for k, l := range sh.m {
			if !now.Before(l.expires) {
				delete(sh.m, k)
				if l.left > 0 {
					stale, ids = append(stale, l), append(ids, k)
				}
			}
		}
		sh.mu.Unlock()
		for i, l := range stale {
			giveBack(ids[i], l.left)
		}
	}
}
