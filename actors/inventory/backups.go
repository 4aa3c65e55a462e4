package inventory

import (
	"context"
	"encoding/json"
	"time"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Backups taken outside vmplane (Proxmox's own vzdump jobs, an operator's vzdump on
// the command line) are adopted by the sync as machines are: each archive of the
// inventory that no record names gets one, under the tenant of its machine, with
// origin external, so that the tenant sees and restores it like the others; an
// external record whose archive is gone from the hypervisor goes too. Archives of
// machines vmplane does not know, or that belong to no tenant, wait.
//
// A backup vmplane takes is on the hypervisor before its taker records it (the
// machine's task, then a schedule's run): such an archive must not be adopted. So an
// archive is left alone while its machine runs a task, and while one of the
// machine's tasks that ended within adoptPatience names it in its result; the
// records are read again after the machines, so that a task that ended in between
// is seen by one read or the other.

// adoptPatience is how long after a backup task ended its taker may still be about to
// record the archive: past it, an archive nobody recorded is adopted.
const adoptPatience = time.Hour

// adoptTaskLookback is how many of a machine's latest tasks are searched for one that
// took an archive.
const adoptTaskLookback = 10

// adoptChunkSize bounds the records written in one batch.
const adoptChunkSize = 100

// adoptBackups reconciles the backup records of the location tagged loc with the
// archives its hypervisor listed: it records those no record names (origin external)
// and removes the external records of archives gone. Archive names repeat across
// locations: the records of other locations are not looked at. It answers how many
// it added and removed.
func (c *Inventory) adoptBackups(ctx context.Context, loc string, archives []hypervisor.Backup) (added, removed int, err error) {
	known, err := c.byArchive(ctx, loc)
	if err != nil {
		return 0, 0, err
	}
	listed := make(map[string]bool, len(archives))
	var candidates []hypervisor.Backup
	for _, a := range archives {
		listed[a.ID] = true
		if _, ok := known[a.ID]; !ok {
			candidates = append(candidates, a)
		}
	}
	var gone []backups.Backup
	for id, r := range known {
		if r.Origin == backups.OriginExternal && !listed[id] {
			gone = append(gone, r)
		}
	}
	var adopt []backups.Backup
	if len(candidates) > 0 {
		if adopt, err = c.adoptable(ctx, loc, candidates); err != nil {
			return 0, 0, err
		}
	}
	if len(adopt) > 0 {
		// Read again: a task that ended since the first read recorded its archive
		// before its machine said it was idle.
		if known, err = c.byArchive(ctx, loc); err != nil {
			return 0, 0, err
		}
	}
	batch, n := new(persistence.Batch), 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		err := c.store.Commit(ctx, batch)
		batch, n = new(persistence.Batch), 0
		return err
	}
	for i := range adopt {
		if _, ok := known[adopt[i].BackupID]; ok {
			continue
		}
		if err := backups.Put(batch, &adopt[i]); err != nil {
			return added, removed, err
		}
		n++
		added++
		if n == adoptChunkSize {
			if err := flush(); err != nil {
				return added - n, removed, err
			}
		}
	}
	for i := range gone {
		backups.Del(batch, &gone[i])
		n++
		removed++
		if n == adoptChunkSize {
			if err := flush(); err != nil {
				return added, removed - n, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, 0, err
	}
	return added, removed, nil
}

// byArchive reads every backup record of the location tagged loc by the hypervisor id
// of its archive.
func (c *Inventory) byArchive(ctx context.Context, loc string) (map[string]backups.Backup, error) {
	all, _, err := c.backups.List(ctx, nil, "", "", 0)
	if err != nil {
		return nil, err
	}
	out := make(map[string]backups.Backup, len(all))
	for _, r := range all {
		if string(r.Location) == loc {
			out[r.BackupID] = r
		}
	}
	return out, nil
}

// adoptable makes the records of the candidates whose machine vmplane knows, belongs
// to a tenant, runs no task and took none of them lately.
func (c *Inventory) adoptable(ctx context.Context, loc string, candidates []hypervisor.Backup) ([]backups.Backup, error) {
	ids, err := c.machines.VMIDs(ctx, loc)
	if err != nil {
		return nil, err
	}
	type machineState struct {
		m     machines.Machine
		taken map[string]bool // archives its recent backup tasks took
		skip  bool
	}
	seen := map[int]*machineState{}
	now := time.Now()
	var out []backups.Backup
	for _, a := range candidates {
		id, ok := ids.Get(a.VMID)
		if !ok {
			continue
		}
		st := seen[a.VMID]
		if st == nil {
			st = &machineState{}
			seen[a.VMID] = st
			if st.m, err = c.machines.Stored(ctx, id); err != nil {
				st.skip = true // gone since the vmids were read
			} else if st.m.TenantID == nil || st.m.TaskID != nil {
				st.skip = true
			} else if st.taken, err = c.recentlyTaken(ctx, id, now); err != nil {
				return nil, err
			}
		}
		if st.skip || st.taken[a.ID] {
			continue
		}
		out = append(out, backups.Backup{ID: persistence.NewID(), BackupID: a.ID, MachineID: id, TenantID: *st.m.TenantID,
			VMID: a.VMID, Node: a.Node, Storage: a.Storage, Mode: string(a.Mode), SizeBytes: a.SizeBytes,
			CreatedAt: a.CreatedAt, Origin: backups.OriginExternal, Location: hvloc.ID(loc)})
	}
	return out, nil
}

// recentlyTaken are the archives the machine's latest tasks took, of those that ended
// within adoptPatience of now.
func (c *Inventory) recentlyTaken(ctx context.Context, machineID string, now time.Time) (map[string]bool, error) {
	tasks, _, err := c.tasks.OfMachine(ctx, machineID, nil, "", adoptTaskLookback)
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, t := range tasks {
		if len(t.Result) == 0 || t.FinishedAt == nil || now.Sub(*t.FinishedAt) > adoptPatience {
			continue
		}
		var r struct {
			Backup struct {
				ID string `json:"id"`
			} `json:"backup"`
		}
		if json.Unmarshal(t.Result, &r) == nil && r.Backup.ID != "" {
			taken[r.Backup.ID] = true
		}
	}
	return taken, nil
}
