package client

import (
	"context"
	"iter"
)

// TasksPage reads one page of tasks, in creation order: a tenant's user sees its
// tenant's, an operator every task.
func (c *Client) TasksPage(ctx context.Context, opt ListOptions) (Page[Task], error) {
	return getPage[Task](ctx, c, "/api/resources/tasks", opt.values())
}

// Tasks yields every task the caller may see, in creation order.
func (c *Client) Tasks(ctx context.Context, opt ListOptions) iter.Seq2[Task, error] {
	return all(ctx, opt, c.TasksPage)
}
