package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
)

// The calls of the /api/resources collections share their shape: one record by id,
// a create answering 201 with the record, a merge-patch change answering it, a delete
// answering 204, and pages in creation order. These helpers are that shape once.

// callFor sends one request and decodes its answer, a T.
func callFor[T any](ctx context.Context, c *Client, method, path string, q url.Values, body any) (*T, error) {
	var out T
	if _, err := c.c.do(ctx, request{method: method, path: path, query: q, body: body, out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

func getRecord[T any](ctx context.Context, c *Client, path string) (*T, error) {
	return callFor[T](ctx, c, http.MethodGet, path, nil, nil)
}

func deleteRecord(ctx context.Context, c *Client, path string) error {
	_, err := c.c.do(ctx, request{method: http.MethodDelete, path: path})
	return err
}

// RecordFilter selects the records of one machine or one tenant in the lists of
// schedules and backups; empty fields do not filter. TenantID is for operators (a
// tenant's user sees its own tenant's records only).
type RecordFilter struct {
	MachineID string
	TenantID  string
	ListOptions
}

func (f RecordFilter) values() url.Values {
	q := f.ListOptions.values()
	if f.MachineID != "" {
		q.Set("machine_id", f.MachineID)
	}
	if f.TenantID != "" {
		q.Set("tenant_id", f.TenantID)
	}
	return q
}

// allFiltered is all for the lists whose filter embeds ListOptions.
func allFiltered[T any](ctx context.Context, f RecordFilter, page func(context.Context, RecordFilter) (Page[T], error)) iter.Seq2[T, error] {
	return all(ctx, f.ListOptions, func(ctx context.Context, o ListOptions) (Page[T], error) {
		g := f
		g.ListOptions = o
		return page(ctx, g)
	})
}

func (f LocationFilter) values() url.Values {
	q := f.ListOptions.values()
	if f.Location != "" {
		q.Set("location", f.Location)
	}
	return q
}

// allIn is all for a list filtered by location.
func allIn[T any](ctx context.Context, f LocationFilter, page func(context.Context, LocationFilter) (Page[T], error)) iter.Seq2[T, error] {
	return all(ctx, f.ListOptions, func(ctx context.Context, o ListOptions) (Page[T], error) {
		g := f
		g.ListOptions = o
		return page(ctx, g)
	})
}

// withQuery merges the values of b into a (a copy of a, when both have some).
func withQuery(a, b url.Values) url.Values {
	if len(b) == 0 {
		return a
	}
	out := url.Values{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
