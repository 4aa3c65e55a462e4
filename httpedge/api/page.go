package api

import (
	"maps"
	"strconv"

	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
)

// Page is the shape of every list answer.
type Page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// PageOf is the page of items whose next page starts at cursor next ("" on the last).
func PageOf[T any](items []T, next string) Page[T] {
	p := Page[T]{Items: items}
	if next != "" {
		p.NextCursor = &next
	}
	return p
}

// MaxPageLimit is the largest page a list answers (?limit=).
const MaxPageLimit = 500

// Paging reads ?limit= (default 50, 1..MaxPageLimit) and ?cursor=.
func (c *Call) Paging() (int, string, error) {
	limit := 50
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageLimit {
			return 0, "", apierr.Invalid(apierr.Field("limit", "must be 1..500"))
		}
		limit = n
	}
	cursor := c.Query("cursor")
	if len(cursor) > 128 {
		return 0, "", apierr.Invalid(apierr.Field("cursor", "is not a cursor of this list"))
	}
	return limit, cursor, nil
}

// PageQuery documents the paging parameters every list takes.
var PageQuery = map[string]string{"limit": "page size, 1..500 (default 50)", "cursor": "next_cursor of the previous page"}

// WithPage is the query of a list: its own parameters and the paging ones.
func WithPage(q map[string]string) map[string]string {
	out := maps.Clone(PageQuery)
	maps.Copy(out, q)
	return out
}

// TaskReply is the 202 answer of slow work.
type TaskReply struct {
	Task tasks.Task `json:"task"`
}

// TaskAccepted is the 202 of slow work run as task t: the task, and its Location.
func TaskAccepted(t tasks.Task) Reply {
	return Accepted(TaskReply{Task: t}, "/api/tasks/"+t.ID)
}
