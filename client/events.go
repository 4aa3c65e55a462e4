package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// FromNow is the lastID that starts the stream of Events with what happens from now on.
const FromNow int64 = -1

// Events yields the server-sent events the caller may see (a tenant user: its
// tenant's), after the event lastID: FromNow for what happens from now on, 0 to replay
// the backlog the server keeps first. When the connection drops it connects again
// (after a pause, to the next member if there are several) with Last-Event-ID, so no
// event is missed or yielded twice; when the session ends it logs in again if it has
// credentials. The iteration ends at the first error it cannot get past (ctx done, a
// 4xx, the retry budget spent in a row), which it yields.
func (c *Client) Events(ctx context.Context, lastID int64) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		last := lastID
		failures := 0
		stale := ""
		for {
			body, tok, err := c.c.openStream(ctx, last, stale)
			if err != nil {
				if ctx.Err() != nil {
					yield(Event{}, ctx.Err())
					return
				}
				if !retryable(err) || failures >= c.c.retries {
					yield(Event{}, err)
					return
				}
				if err := c.c.sleep(ctx, retryAfterErr(err, failures)); err != nil {
					yield(Event{}, err)
					return
				}
				failures++
				continue
			}
			stale = ""
			ended, stop := readEvents(body, &last, &failures, yield)
			body.Close()
			if stop {
				return
			}
			if ctx.Err() != nil {
				yield(Event{}, ctx.Err())
				return
			}
			if ended {
				// The session ended (logout, password change): a new login is needed.
				if !c.c.auth.canRenew() {
					yield(Event{}, &Error{Status: 401, Code: ErrUnauthorized.Code, Detail: "the session has ended"})
					return
				}
				stale = tok
			}
			if failures >= c.c.retries {
				yield(Event{}, fmt.Errorf("vmplane client: the event stream keeps dropping"))
				return
			}
			if err := c.c.sleep(ctx, backoff(failures)); err != nil {
				yield(Event{}, err)
				return
			}
			failures++
		}
	}
}

// streamError is a failure to open the stream, with the pause the server asked for.
type streamError struct {
	err  error
	wait http.Header
}

func (e *streamError) Error() string { return e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

func retryable(err error) bool {
	se, ok := err.(*streamError)
	if !ok {
		return false
	}
	if ae, ok := se.err.(*Error); ok {
		return ae.Status == http.StatusTooManyRequests || ae.Status == http.StatusServiceUnavailable
	}
	return true // a network error
}

func retryAfterErr(err error, attempt int) time.Duration {
	if se, ok := err.(*streamError); ok && se.wait != nil {
		return retryAfter(se.wait, attempt)
	}
	return backoff(attempt)
}

// openStream connects to GET /api/events after the event last; stale is a token to
// renew first. It returns the body to read and the token it sent.
func (c *core) openStream(ctx context.Context, last int64, stale string) (io.ReadCloser, string, error) {
	h := http.Header{"Accept": {"text/event-stream"}}
	if last >= 0 {
		h.Set("Last-Event-ID", strconv.FormatInt(last, 10))
	}
	res, tok, err := c.openGet(ctx, "/api/events", h, stale)
	if err != nil {
		return nil, "", err
	}
	return res.Body, tok, nil
}

// openGet sends GET path with header and answers the 200 response, whose body the
// caller reads and closes: a stream, not a JSON answer. A refused token is renewed
// once (stale is a token known to be refused already); a connection error moves to
// the next base URL for the next call. Errors are *streamError (any status but 200
// unwraps to an *Error; its header says when to try again).
func (c *core) openGet(ctx context.Context, path string, header http.Header, stale string) (*http.Response, string, error) {
	tok, err := c.token(ctx, stale)
	if err != nil {
		return nil, "", err
	}
	idx := int(c.cur.Load()) % len(c.bases)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.bases[idx]+path, nil)
	if err != nil {
		return nil, "", err
	}
	maps.Copy(req.Header, header)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		if len(c.bases) > 1 {
			c.cur.CompareAndSwap(int32(idx), int32((idx+1)%len(c.bases)))
		}
		return nil, "", &streamError{err: fmt.Errorf("vmplane client: GET %s: %w", path, err)}
	}
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		e := errorFrom(res, body)
		if res.StatusCode == http.StatusUnauthorized && c.auth.canRenew() && stale == "" {
			// The token was refused: renew it once and ask again.
			return c.openGet(ctx, path, header, tok)
		}
		return nil, "", &streamError{err: e, wait: res.Header}
	}
	return res, tok, nil
}

// readEvents yields the events of one connection until it ends, moving *last past each
// one. ended reports the server's "end" notice (the session ended); stop that the
// caller stopped the iteration.
func readEvents(body io.Reader, last *int64, failures *int, yield func(Event, error) bool) (ended, stop bool) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var (
		ev   Event
		data strings.Builder
		has  bool
	)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if !has {
				continue
			}
			ev.Data = json.RawMessage(data.String())
			if ev.Type == "" {
				ev.Type = "message"
			}
			if ev.Type == "end" {
				return true, false
			}
			*failures = 0 // the connection works
			if !yield(ev, nil) {
				return false, true
			}
			if ev.ID > 0 {
				*last = int64(ev.ID)
			}
			ev, has = Event{}, false
			data.Reset()
			continue
		}
		if strings.HasPrefix(line, ":") {
			*failures = 0 // a comment: the heartbeat of a working connection
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Type, has = value, true
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			has = true
		case "id":
			if n, err := strconv.ParseUint(value, 10, 64); err == nil {
				ev.ID = n
			}
		}
	}
	return false, false
}
