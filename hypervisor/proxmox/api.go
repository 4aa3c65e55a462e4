package proxmox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	pve "github.com/luthermonson/go-proxmox"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvehttp"
)

// call sends one request through go-proxmox's client (which adds the token header and
// decodes {"data": ...} into out) and returns the raw error, for callers that need to
// look at Proxmox's answer before it is mapped. Bodies go as JSON, which pveproxy
// accepts like form data; booleans are sent as 0/1.
func (d *Driver) call(ctx context.Context, method, path string, query url.Values, body map[string]any, out any) error {
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	switch method {
	case http.MethodGet:
		return d.api.Get(ctx, path, out)
	case http.MethodDelete:
		return d.api.Delete(ctx, path, out)
	case http.MethodPost:
		if len(body) == 0 {
			return d.api.Post(ctx, path, nil, out)
		}
		return d.api.Post(ctx, path, body, out)
	case http.MethodPut:
		if len(body) == 0 {
			return d.api.Put(ctx, path, nil, out)
		}
		return d.api.Put(ctx, path, body, out)
	}
	return fmt.Errorf("unsupported method %s", method)
}

func (d *Driver) get(ctx context.Context, path string, query url.Values, out any) error {
	return d.apiError(ctx, d.call(ctx, http.MethodGet, path, query, nil, out))
}

func (d *Driver) post(ctx context.Context, path string, body map[string]any, out any) error {
	return d.apiError(ctx, d.call(ctx, http.MethodPost, path, nil, body, out))
}

func (d *Driver) put(ctx context.Context, path string, body map[string]any, out any) error {
	return d.apiError(ctx, d.call(ctx, http.MethodPut, path, nil, body, out))
}

func (d *Driver) del(ctx context.Context, path string, query url.Values, out any) error {
	return d.apiError(ctx, d.call(ctx, http.MethodDelete, path, query, nil, out))
}

// Ping asks GET /version with a short timeout and no retries; any failure is
// ErrUnavailable (unless the caller's own context ended).
func (d *Driver) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return hypervisor.ContextError(err)
	}
	pctx, cancel := context.WithTimeout(pvehttp.WithoutRetry(ctx), min(d.cfg.RequestTimeout, 5*time.Second))
	defer cancel()
	var v pve.Version
	err := d.call(pctx, http.MethodGet, "/version", nil, nil, &v)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return hypervisor.ContextError(ctx.Err())
	}
	if mapped := d.apiError(context.Background(), err); errors.Is(mapped, hypervisor.ErrUnavailable) {
		return mapped
	}
	return hypervisor.NewError(hypervisor.ErrUnavailable, "Proxmox did not answer GET /version: %s", d.scrub(ctx, err.Error()))
}

// clusterView is one reading of GET /cluster/resources: the only place that knows
// which node each VM is on right now (it changes with every migration).
type clusterView struct {
	nodes    map[string]*pve.ClusterResource
	vms      map[int]*pve.ClusterResource // qemu guests and templates
	storages []*pve.ClusterResource
}

// resources reads /cluster/resources, all types in one consistent answer.
func (d *Driver) resources(ctx context.Context) (*clusterView, error) {
	rs, err := new(pve.Cluster).New(d.api).Resources(ctx)
	if err != nil {
		return nil, d.apiError(ctx, err)
	}
	v := &clusterView{nodes: map[string]*pve.ClusterResource{}, vms: map[int]*pve.ClusterResource{}}
	for _, r := range rs {
		switch r.Type {
		case "node":
			v.nodes[r.Node] = r
		case "qemu":
			v.vms[int(r.VMID)] = r
		case "storage":
			v.storages = append(v.storages, r)
		}
	}
	return v, nil
}

func (v *clusterView) online(node string) bool {
	n, ok := v.nodes[node]
	return ok && n.Status == "online"
}

// sortedNodes lists node names in order.
func (v *clusterView) sortedNodes() []string {
	out := make([]string, 0, len(v.nodes))
	for n := range v.nodes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// shared reports whether a storage is shared (the same on every node).
func (v *clusterView) shared(storage string) bool {
	for _, s := range v.storages {
		if s.Storage == storage {
			return s.Shared == 1
		}
	}
	return false
}

// hasStorage reports whether a node has a storage. A token without Datastore.Audit
// sees no storages in /cluster/resources; then Proxmox itself is left to judge.
func (v *clusterView) hasStorage(storage, node string) bool {
	if len(v.storages) == 0 {
		return true
	}
	for _, s := range v.storages {
		if s.Storage == storage && s.Node == node {
			return true
		}
	}
	return false
}

// imageStorageGB is the size of the storages for disk images (content "images") a
// node has, in GiB: the room for its machines' disks. 0 when no storage is seen.
func (v *clusterView) imageStorageGB(node string) int {
	var total uint64
	for _, s := range v.storages {
		if s.Node == node && slices.Contains(strings.Split(s.Content, ","), "images") {
			total += s.MaxDisk
		}
	}
	return int(total >> 30)
}

// storageNodes lists the online nodes that have a storage.
func (v *clusterView) storageNodes(storage string) []string {
	var out []string
	for _, s := range v.storages {
		if s.Storage == storage && v.online(s.Node) {
			out = append(out, s.Node)
		}
	}
	sort.Strings(out)
	return out
}

// located is a machine found in /cluster/resources.
type located struct {
	vmid   int
	node   string
	res    *pve.ClusterResource
	online bool
	view   *clusterView
}

// path is the API path of the machine on its current node.
func (l *located) path() string { return vmPath(l.node, l.vmid) }

func vmPath(node string, vmid int) string {
	return fmt.Sprintf("/nodes/%s/qemu/%d", url.PathEscape(node), vmid)
}

// live refuses work on a machine whose node is down: nothing runs on a dead host.
func (l *located) live() error {
	if !l.online {
		return hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s of machine %d is offline", l.node, l.vmid)
	}
	return nil
}

// locateLive is locate for work on the machine: its node must be online.
func (d *Driver) locateLive(ctx context.Context, vmid int) (*located, error) {
	l, err := d.locate(ctx, vmid)
	if err != nil {
		return nil, err
	}
	if err := l.live(); err != nil {
		return nil, err
	}
	return l, nil
}

// locate re-resolves vmid → node from /cluster/resources (Ref.Node is only a hint:
// the machine may have migrated). Templates are not machines.
func (d *Driver) locate(ctx context.Context, vmid int) (*located, error) {
	if err := ctx.Err(); err != nil {
		return nil, hypervisor.ContextError(err)
	}
	view, err := d.resources(ctx)
	if err != nil {
		return nil, err
	}
	return view.locate(vmid)
}

func (v *clusterView) locate(vmid int) (*located, error) {
	r, ok := v.vms[vmid]
	if !ok || r.Template == 1 {
		return nil, machineNotFound(vmid)
	}
	return &located{vmid: vmid, node: r.Node, res: r, online: v.online(r.Node), view: v}, nil
}

// vmConfig reads a VM's config (pending changes applied, as the GUI shows it).
func (d *Driver) vmConfig(ctx context.Context, node string, vmid int) (pveconf.VM, error) {
	var raw map[string]any
	if err := d.get(ctx, vmPath(node, vmid)+"/config", nil, &raw); err != nil {
		if errors.Is(err, hypervisor.ErrMachineNotFound) {
			return nil, machineNotFound(vmid)
		}
		return nil, err
	}
	return pveconf.FromJSON(raw), nil
}

// liveStatus is a VM's state from QEMU itself (GET status/current): /cluster/resources
// lags by up to one pvestatd cycle, too slow for the state checks before an action.
type liveStatus struct {
	state     hypervisor.State
	status    string
	qmpStatus string
	lock      string
}

func (d *Driver) status(ctx context.Context, l *located) (liveStatus, error) {
	var st struct {
		Status    string `json:"status"`
		QMPStatus string `json:"qmpstatus"`
		Lock      string `json:"lock"`
	}
	if err := d.get(ctx, l.path()+"/status/current", nil, &st); err != nil {
		if errors.Is(err, hypervisor.ErrMachineNotFound) {
			return liveStatus{}, machineNotFound(l.vmid)
		}
		return liveStatus{}, err
	}
	return liveStatus{state: pveconf.State(st.Status, st.QMPStatus, st.Lock), status: st.Status, qmpStatus: st.QMPStatus, lock: st.Lock}, nil
}

// waitTask follows a UPID until its task stops: exitstatus "OK" (or "WARNINGS: n") is
// success, anything else is ErrTaskFailed carrying Proxmox's text. The task runs on
// the node named in the UPID, which for a migration is the source node. An empty UPID
// means the call finished synchronously. When ctx ends first the task keeps running on
// Proxmox; vmplane reports the cancellation.
func (d *Driver) waitTask(ctx context.Context, node, upid, what string) error {
	if upid == "" {
		return nil
	}
	u := pveconf.ParseUPID(upid)
	if u.Node != "" {
		node = u.Node
	}
	path := fmt.Sprintf("/nodes/%s/tasks/%s/status", url.PathEscape(node), url.PathEscape(upid))
	for {
		var st struct {
			Status     string `json:"status"`
			ExitStatus string `json:"exitstatus"`
		}
		if err := d.get(ctx, path, nil, &st); err != nil {
			return err
		}
		if st.Status == "stopped" {
			exit := strings.TrimSpace(st.ExitStatus)
			if exit == "OK" || strings.HasPrefix(exit, "WARNINGS") {
				if exit != "OK" {
					d.log.Warn("proxmox task finished with warnings", zap.String("task", u.Type), zap.String("upid", upid), zap.String("exitstatus", exit))
				}
				return nil
			}
			if modifiedMessage(exit) {
				return hypervisor.NewError(errModified, "%s: Proxmox task %s failed: %s", what, u.Type, d.scrub(ctx, exit))
			}
			return hypervisor.NewError(hypervisor.ErrTaskFailed, "%s: Proxmox task %s failed: %s", what, u.Type, d.scrub(ctx, exit))
		}
		if err := sleep(ctx, d.cfg.TaskPollInterval); err != nil {
			return err
		}
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return hypervisor.ContextError(ctx.Err())
	}
}

// waitUnlocked polls a VM's config until it holds no lock (after a clone or restore
// the lock outlives the task briefly) and returns that config.
func (d *Driver) waitUnlocked(ctx context.Context, node string, vmid int) (pveconf.VM, error) {
	for {
		cfg, err := d.vmConfig(ctx, node, vmid)
		if err != nil {
			return nil, err
		}
		if cfg["lock"] == "" {
			return cfg, nil
		}
		if err := sleep(ctx, d.cfg.TaskPollInterval); err != nil {
			return nil, err
		}
	}
}

// machine reads one machine: where it is, its live state and its config.
func (d *Driver) machine(ctx context.Context, vmid int) (hypervisor.Machine, error) {
	l, err := d.locate(ctx, vmid)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	return d.readMachine(ctx, l)
}

func (d *Driver) readMachine(ctx context.Context, l *located) (hypervisor.Machine, error) {
	if !l.online {
		return pveconf.MachineFromResource(l.res), nil
	}
	st, err := d.status(ctx, l)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	cfg, err := d.vmConfig(ctx, l.node, l.vmid)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	return pveconf.Machine(l.vmid, l.node, st.state, cfg), nil
}

// startTask posts a write that answers a UPID and waits for its task.
func (d *Driver) startTask(ctx context.Context, method, node, path string, body map[string]any, what string) error {
	var id string
	var err error
	switch method {
	case http.MethodPut:
		err = d.put(ctx, path, body, &id)
	case http.MethodDelete:
		q := url.Values{}
		for k, v := range body {
			q.Set(k, fmt.Sprint(v))
		}
		err = d.del(ctx, path, q, &id)
	default:
		err = d.post(ctx, path, body, &id)
	}
	if err != nil {
		return err
	}
	return d.waitTask(ctx, node, id, what)
}

// itoa is strconv.Itoa, for building Proxmox parameters.
func itoa(i int) string { return strconv.Itoa(i) }
