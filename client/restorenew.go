package client

import (
	"context"
	"net/http"
)

// RestoreNewSpec says where a backup is restored as a new machine; every field may be
// left out.
type RestoreNewSpec struct {
	// Node is the node to restore to; "": the hypervisor's choice.
	Node string `json:"node,omitempty"`
	// Name is the new machine's; "": the backup's machine's name.
	Name string `json:"name,omitempty"`
	// TenantID is the tenant the machine is for, within its quota; "": the backup's.
	TenantID string `json:"tenant_id,omitempty"`
	// StartAfter starts the machine once it is restored.
	StartAfter bool `json:"start_after,omitempty"`
}

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
