package client

import (
	"context"
	"iter"
)

// GetBackup reads one backup.
func (c *Client) GetBackup(ctx context.Context, id string) (*Backup, error) {
	return getRecord[Backup](ctx, c, "/api/resources/backups/"+esc(id))
}

// DeleteBackup deletes a backup.
func (c *Client) DeleteBackup(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/backups/"+esc(id))
}

// BackupsPage reads one page of backups (of one machine or tenant when f says so).
func (c *Client) BackupsPage(ctx context.Context, f RecordFilter) (Page[Backup], error) {
	return getPage[Backup](ctx, c, "/api/resources/backups", f.values())
}

// Backups yields every backup f selects, in creation order.
func (c *Client) Backups(ctx context.Context, f RecordFilter) iter.Seq2[Backup, error] {
	return allFiltered(ctx, f, c.BackupsPage)
}
