package client

import (
	"context"
	"net/http"
)

// RestoreBackupAsNew restores a backup into a new machine (an operator's call) and
// answers at once with the machine and the task that restores it (vm.restore_new):
// wait for it with WaitTask. Past the tenant's quota, ErrQuotaExceeded.
func (c *Client) RestoreBackupAsNew(ctx context.Context, backupID string, spec RestoreNewSpec) (*Machine, *Task, error) {
	var out provisioned
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/virt/backups/" + esc(backupID) + "/restore", body: spec, out: &out})
	if err != nil {
		return nil, nil, err
	}
	return &out.Machine, &out.Task, nil
}
