package client

import (
	"context"
	"encoding/json"
	"sync"
)

// taskWatch feeds the task.updated events of one event stream to the WaitTask calls
// waiting for those tasks. The stream is opened when the first waiter comes and closed
// when the last one leaves, so an idle client holds no stream open.
type taskWatch struct {
	mu      sync.Mutex
	waiters map[string]map[chan *Task]struct{}
	n       int                // waiters in all
	cancel  context.CancelFunc // of the running stream; nil when none runs
}

// watch registers a waiter for task id; done unregisters it. The channel receives the
// task's updates while the stream is up (the latest only, if the waiter is slow).
func (w *taskWatch) watch(c *Client, id string) (<-chan *Task, func()) {
	ch := make(chan *Task, 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiters == nil {
		w.waiters = map[string]map[chan *Task]struct{}{}
	}
	if w.waiters[id] == nil {
		w.waiters[id] = map[chan *Task]struct{}{}
	}
	w.waiters[id][ch] = struct{}{}
	w.n++
	if w.cancel == nil {
		ctx, cancel := context.WithCancel(context.Background())
		w.cancel = cancel
		go w.run(ctx, c)
	}
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.waiters[id], ch)
		if len(w.waiters[id]) == 0 {
			delete(w.waiters, id)
		}
		w.n--
		if w.n == 0 && w.cancel != nil {
			w.cancel()
			w.cancel = nil
		}
	}
}

// run reads the stream until it is cancelled or fails; the waiters then go on polling.
func (w *taskWatch) run(ctx context.Context, c *Client) {
	for ev, err := range (&Client{c: c.c}).Events(ctx, FromNow) {
		if err != nil {
			break
		}
		if ev.Type != "task.updated" {
			continue
		}
		var t Task
		if json.Unmarshal(ev.Data, &t) != nil {
			continue
		}
		w.mu.Lock()
		for ch := range w.waiters[t.ID] {
			u := t
			select {
			case <-ch: // drop an unread older update: the latest state is what counts
			default:
			}
			ch <- &u
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ctx.Err() == nil && w.cancel != nil {
		// The stream failed on its own: the next waiter to come opens a new one.
		w.cancel()
		w.cancel = nil
	}
}
