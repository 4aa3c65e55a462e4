package client

import (
	"context"
	"fmt"
	"io"
)

// Backup streams a consistent snapshot of the server's store (GET /api/admin/backup,
// operators only) into w and answers its size. The server writes it as it reads it:
// an error means what w holds is incomplete and must be thrown away; a complete one
// ends with a checksum that `vmplane restore` verifies before loading it. A clustered
// server answers ErrInvalidState: its state is backed up with etcd's own snapshot.
func (c *Client) Backup(ctx context.Context, w io.Writer) (int64, error) {
	res, _, err := c.c.openGet(ctx, "/api/admin/backup", nil, "")
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	n, err := io.Copy(w, res.Body)
	if err != nil {
		return n, fmt.Errorf("vmplane client: backup cut off after %d bytes: %w", n, err)
	}
	return n, nil
}
