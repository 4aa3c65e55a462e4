// Package proxmox is vmplane's Proxmox VE driver: hypervisor.Driver over the Proxmox
// VE API (/api2/json), authenticated with an API token, following every task (UPID)
// to its end. It is tested against pvefake, a stateful fake of the API on a real TLS
// listener.
//
// # Configuration
//
// Config holds the settings; suggested flags and environment variables:
//
//	VMPLANE_PROXMOX_URL                 URL                https://pve1.example.com:8006/api2/json
//	VMPLANE_PROXMOX_TOKEN_ID            TokenID            vmplane@pve!driver
//	VMPLANE_PROXMOX_TOKEN_SECRET        TokenSecret        (secret)
//	VMPLANE_PROXMOX_CA_FILE             CAFile             /etc/vmplane/pve-root-ca.pem
//	VMPLANE_PROXMOX_FINGERPRINT         Fingerprint        AB:CD:... (SHA-256 of the node certificate)
//	VMPLANE_PROXMOX_INSECURE            InsecureSkipVerify false
//	VMPLANE_PROXMOX_REQUEST_TIMEOUT     RequestTimeout     15s
//	VMPLANE_PROXMOX_TASK_POLL_INTERVAL  TaskPollInterval   1s
//	VMPLANE_PROXMOX_DEFAULT_STORAGE     DefaultStorage     local-lvm
//	VMPLANE_PROXMOX_DEFAULT_BRIDGE      DefaultBridge      vmbr0
//	VMPLANE_PROXMOX_BACKUP_STORAGE      BackupStorage      local
//	VMPLANE_PROXMOX_CONSOLE_USER        ConsoleUser        vmconsole@pve (optional)
//	VMPLANE_PROXMOX_CONSOLE_PASSWORD    ConsolePassword    (secret, optional)
//
// # Privileges
//
// The API token (with privilege separation, grant the role to the user and to the
// token: a token gets the intersection) needs, on / or on /vms, /storage and /nodes:
//
//	Sys.Audit                    cluster resources, node usage graphs, task status and lists
//	VM.Audit                     configs, status, usage graphs, firewall rules
//	VM.PowerMgmt                 power actions
//	VM.Config.CPU, VM.Config.Memory, VM.Config.Options (name, tags),
//	VM.Config.Network (NICs and the VM firewall: rules, options, IP sets),
//	VM.Config.Disk (add, resize),
//	VM.Config.Cloudinit          create and reinstall
//	VM.Migrate                   migrate
//	VM.Clone                     on the templates
//	VM.Allocate                  create, destroy, reinstall, restore
//	VM.Backup                    backups, their deletion, restores
//	VM.Snapshot                  snapshots, their rollback and deletion
//	Datastore.Audit              storages and their backup content
//	Datastore.AllocateSpace      disks, clones, backups
//	VM.Config.CDROM              mounting and ejecting ISO images
//	Datastore.AllocateTemplate   fetching (download-url), uploading and deleting ISO images
//	Sys.Modify                   download-url (on /)
//	SDN.Use                      only when bridges are SDN vnets (on /sdn/zones/...)
//
// For example:
//
//	pveum role add VMplane --privs "Sys.Audit,VM.Audit,VM.PowerMgmt,VM.Config.CPU,VM.Config.Memory,VM.Config.Options,VM.Config.Network,VM.Config.Disk,VM.Config.Cloudinit,VM.Migrate,VM.Clone,VM.Allocate,VM.Backup,VM.Snapshot,Datastore.Audit,Datastore.AllocateSpace,VM.Config.CDROM,Datastore.AllocateTemplate,Sys.Modify"
//	pveum user add vmplane@pve
//	pveum user token add vmplane@pve driver --privsep 1
//	pveum acl modify / --users vmplane@pve --roles VMplane
//	pveum acl modify / --tokens 'vmplane@pve!driver' --roles VMplane
//
// The console needs a second, separate user holding only VM.Console: see
// Driver.Console. A refused privilege is reported as 503 unavailable naming the path
// and privilege Proxmox refused: it is the operator's to fix, and a tenant must never
// see a 403 caused by vmplane's own token.
//
// # How each operation maps to Proxmox
//
//	Inventory      GET /cluster/resources (nodes, VMs, storages in one answer), then
//	               GET .../qemu/{vmid}/config per VM on an online node (4 in parallel)
//	Machine        GET /cluster/resources (vmid → node, every call: machines migrate),
//	               GET .../status/current, GET .../config
//	Power          state check, POST .../status/{action}, follow the UPID
//	Migrate        checks, GET .../migrate?target=, POST .../migrate (online,
//	               with-local-disks), follow the UPID
//	Configure      GET .../config (digest), POST .../config with digest, follow the UPID
//	SetNetwork     same, rewriting netN strings in place
//	AddDisk        POST .../config scsiN=STORAGE:SIZE
//	ResizeDisk     PUT .../resize disk= size=NG (grow only; shrink refused before)
//	Create         GET /cluster/nextid, POST .../clone, UPID, wait for lock, POST config,
//	               with addresses the IP set (below), PUT resize, POST status/start
//	SetAddresses   GET .../firewall/ipset, POST it (name=ipfilter-net0) when absent,
//	               GET .../ipset/ipfilter-net0, DELETE .../ipfilter-net0/{cidr} per
//	               extra entry, POST .../ipfilter-net0 cidr= per missing one, PUT
//	               .../firewall/options ipfilter=1, POST config ipconfig0= when the
//	               primary addresses changed
//	Destroy        POST status/stop if needed, DELETE .../qemu/{vmid}?purge=1&destroy-unreferenced-disks=1
//	Reinstall      pattern (A): stop, destroy, clone to the same vmid, re-apply (see Reinstall)
//	Usage          GET .../rrddata?timeframe=&cf=AVERAGE (machine or node)
//	SetFirewall    GET .../firewall/rules, then one digest-guarded POST/PUT/DELETE per
//	               step until Proxmox's list equals ours (converges; a retry never
//	               duplicates), PUT .../firewall/options enable=1, netN firewall=1
//	Backup(s)      POST /nodes/{n}/vzdump, GET /nodes/{n}/storage/{s}/content?content=backup&vmid=,
//	               DELETE .../content/{volid}, POST /nodes/{n}/qemu archive= force=1
//	RestoreNew     GET /cluster/nextid, POST /nodes/{n}/qemu vmid= archive= unique=1 name=,
//	               UPID, wait for lock; with addresses ipconfig0 and the IP set as above
//	Snapshots      GET .../snapshot (the "current" entry left out); lock, name and state
//	               checked first, then POST .../snapshot snapname= description= vmstate=,
//	               POST .../snapshot/{name}/rollback, DELETE .../snapshot/{name}; UPIDs
//	Console        POST /access/ticket, POST .../termproxy, wss .../vncwebsocket
//	Ping           GET /version, one attempt, short timeout
//
// Every read-modify-write (config, resize, firewall rules) sends the digest of what it
// read. Proxmox refuses a stale digest with "detected modified configuration" (a 500,
// or the exit status of the config task); the driver reads again and retries, at most
// three times, then fails with 409 conflict.
//
// Templates are Proxmox VMs with template=1. Their id is "tpl-<vmid>" (stable when a
// template is renamed); Create and Reinstall also accept a bare vmid, a unique
// template name, or "tpl-<name>" (the sim's style: "tpl-debian-12"). Proxmox records no link from a clone to its template, so the driver
// tags clones "vmplane-tpl-<vmid>" and reads Machine.TemplateID from that tag.
//
// Sizes: Proxmox's "G" is GiB, and that is what vmplane's *_gb fields carry.
// Interface rates: Proxmox's rate is MB/s; vmplane's rate_mbps is Mbit/s (×8).
// Addresses: Machine interfaces show the static addresses of cloud-init ipconfigN;
// DHCP addresses are not in the config and are not reported. The addresses vmplane
// gives a machine also go into the VM firewall's IP set ipfilter-net0, enforced from
// the first address (ipfilter.go): ipfilter=1 with the firewall on (enable=1,
// firewall=1 on the NICs) and, on a machine without rules, policy_in=policy_out=ACCEPT
// (no rules = open); a reinstall and a restore over the machine keep it.
//
// # go-proxmox
//
// github.com/luthermonson/go-proxmox v0.8.0 is the HTTP and auth layer of every call:
// its Client (WithAPIToken, WithHTTPClient) sends each request and decodes the
// {"data": ...} envelope. Under it sits the driver's own http.RoundTripper (one pooled
// http.Client): per-request timeouts, retries of GETs only, and Proxmox's error
// message and status kept instead of the library's bare status line (it reduces 401
// and 403 to one opaque error and drops the message of a 500). Of its typed helpers
// the driver uses what is correct against real Proxmox: Cluster.Resources and
// Cluster.NextID, ClusterResource, Version, Ticket/Session (the console login), Term
// (termproxy), StorageContent and EncodeSSHKeys. It does not use: Task.Wait (sleeps
// without watching the context), VirtualMachine.RRDData (non-nullable floats turn gaps
// into zeros), VirtualMachineMigratePreconditions ("running" is a bool, Proxmox sends
// 0/1), FirewallRule (no digest), VirtualMachineConfig (fixed fields; numbers typed
// in ways Proxmox does not always follow), VirtualMachine.Delete (lists storages to
// remove cloud-init ISOs first), Client.Cluster (needs an extra call and Sys.Audit on
// /), nor its websocket helpers (they refuse API tokens, and use gorilla/websocket,
// where vmplane uses github.com/fasthttp/websocket).
//
// # Versions
//
// Proxmox VE 8 and 9. Their RRD layouts differ (PVE 9: 1,440 points per timeframe
// from the day up; PVE 8: 70), so Usage reports the spacing of the data it got, never
// a version's table. The driver relies on no other difference between them.
//
// # Limits
//
//   - Calls block until Proxmox's task ends; a cancelled call leaves the task running
//     on Proxmox. A Create cancelled after its clone started may leave the clone (logged).
//   - Reinstall destroys the data on every disk, data disks included (pattern A).
//   - Backups are listed on BackupStorage only; with a node-local BackupStorage, an
//     archive is listed from its node and cannot be restored onto a machine that has
//     migrated elsewhere. Use a shared BackupStorage (NFS, CIFS, PBS) in clusters.
//   - While a node is offline its machines are reported from /cluster/resources only
//     (state stopped, boot disk as scsi0, no interfaces), and nothing runs on them.
//   - Usage graphs always end now (Proxmox has no end parameter); UsageQuery.End only
//     drops later buckets.
package proxmox
