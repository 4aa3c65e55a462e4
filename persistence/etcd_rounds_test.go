package persistence

import (
	"sync"
	"testing"
)

// roundLog records, in one order, when callers joined CaughtUp's rounds and when the
// rounds started (sent their read), and holds every round until released.
type roundLog struct {
	mu      sync.Mutex
	events  int
	started map[*caughtRound]int // the event number of each round's start
	release map[*caughtRound]chan struct{}
	starts  chan *caughtRound
}

func newRoundLog() *roundLog {
	return &roundLog{started: map[*caughtRound]int{}, release: map[*caughtRound]chan struct{}{}, starts: make(chan *caughtRound, 64)}
}

// run is the rounds' work: it notes the start, tells the test, and waits to be released.
func (l *roundLog) run(r *caughtRound) {
	l.mu.Lock()
	l.events++
	l.started[r] = l.events
	ch := make(chan struct{})
	l.release[r] = ch
	l.mu.Unlock()
	l.starts <- r
	<-ch
}

// join is a caller coming: its event number, and the round it was given.
func (l *roundLog) join(c *caughtRounds) (int, *caughtRound) {
	l.mu.Lock()
	l.events++
	n := l.events
	l.mu.Unlock()
	return n, c.join(l.run)
}

func (l *roundLog) free(r *caughtRound) {
	l.mu.Lock()
	ch := l.release[r]
	l.mu.Unlock()
	close(ch)
	<-r.done
}

// TestCaughtRoundsOverlapAndShare: a caller that comes while rounds are under way
// starts one of its own at once (up to maxCaughtRounds in flight), never joins a round
// that started before it came (its read could predate a write the caller must see),
// and callers that come while every slot is taken share the next round, which starts
// when a slot frees.
func TestCaughtRoundsOverlapAndShare(t *testing.T) {
	var c caughtRounds
	l := newRoundLog()
	type joined struct {
		at    int
		round *caughtRound
	}
	var callers []joined
	var running []*caughtRound
	for i := 0; i < maxCaughtRounds; i++ {
		at, r := l.join(&c)
		callers = append(callers, joined{at, r})
		// Started without waiting for the rounds before it to end (the test blocks
		// here otherwise).
		if got := <-l.starts; got != r {
			t.Fatalf("caller %d: a round started that is not its own", i)
		}
		for _, o := range running {
			if o == r {
				t.Fatalf("caller %d was given round %p, which had started before it came", i, r)
			}
		}
		running = append(running, r)
	}
	// Every slot taken: the next callers share one round, not started yet.
	atA, a := l.join(&c)
	atB, b := l.join(&c)
	if a != b {
		t.Fatal("two callers coming while every slot is taken were given different rounds; want them to share one")
	}
	for _, o := range running {
		if o == a {
			t.Fatal("a caller coming while every slot is taken was given a round under way")
		}
	}
	callers = append(callers, joined{atA, a}, joined{atB, b})
	l.free(running[0])
	if got := <-l.starts; got != a {
		t.Fatal("a freed slot did not start the round the callers wait for")
	}
	// A caller coming now (a's round under way, every slot taken again) gets a round
	// of its own, which starts when the next slot frees.
	atC, cr := l.join(&c)
	if cr == a {
		t.Fatal("a caller was given a round that had started before it came")
	}
	callers = append(callers, joined{atC, cr})
	l.free(running[1])
	if got := <-l.starts; got != cr {
		t.Fatal("a freed slot did not start the new caller's round")
	}
	for _, r := range append(running[2:], a, cr) {
		l.free(r)
	}
	for i, j := range callers {
		l.mu.Lock()
		start := l.started[j.round]
		l.mu.Unlock()
		if start <= j.at {
			t.Fatalf("caller %d came at event %d and was answered by a round that started at event %d", i, j.at, start)
		}
	}
	// Every goroutine gone once nothing waits.
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open != nil {
		t.Fatal("a round is left open with no caller")
	}
}
