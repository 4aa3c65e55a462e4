// Package pvefake is a stateful fake of the Proxmox VE API (/api2/json) for tests: a real
// TLS listener (httptest) that speaks the shapes of the API subset vmplane's proxmox
// driver uses, so the driver's tests exercise real HTTP, TLS, auth and task polling
// rather than mocks. The application's integration tests can run against it too.
//
// What it models, and why each matters to a driver:
//
//   - Nodes pve1..pveN that can go offline (their VMs turn "unknown" in
//     /cluster/resources and requests routed to them fail with 595, as pveproxy does).
//   - VMs by vmid and node with status running/stopped/paused, a config whose digest
//     changes on every write (optimistic locking), locks ("VM 100 is locked (clone)"),
//     and templates (template=1) to clone from.
//   - Tasks: every write that Proxmox runs as a worker answers a UPID in Proxmox's format
//     and finishes only after TaskPolls polls of its status, applying its effect then,
//     so a driver that does not follow the UPID sees stale state. HoldTasks keeps them
//     running; GET /nodes/{node}/tasks?source=active lists those not yet stopped.
//   - Auth: API tokens (Authorization: PVEAPIToken=id=secret; a wrong one is 401) and
//     tickets from POST /access/ticket (PVEAuthCookie plus CSRFPreventionToken for writes).
//     Ticket users may only open consoles; API tokens are refused on vncwebsocket, as
//     real Proxmox refuses them (luthermonson/go-proxmox#221).
//   - Injectable faults per method and path: HTTP errors (500, 503, 403...), latency, and
//     tasks that end with an error exitstatus.
//   - rrddata at the Proxmox VE 9 resolutions with empty buckets (or PVE 8's, with
//     RRDLayout "pve8"), firewall rules by position (POST inserts at the top, PUT
//     moveto reorders) verified as pve-firewall does (mixed IPv4/IPv6 addresses,
//     protocols, ports, ipsets, aliases), a VM's IP sets (ipfilter-net0 and others:
//     names, entries normalised and unique as pve-firewall stores them, force to
//     delete a non-empty set), vzdump backups on node storages with restore,
//     snapshots (with or without memory, a tree of parents, rollback, delete; checked
//     in their tasks as qemu-server does, and removed by a restore over the VM),
//     termproxy and a vncwebsocket that speaks the termproxy framing in front of a
//     tiny shell (typing "hostname" answers the VM's name); vncproxy (websocket=1) and
//     a vncwebsocket that serves a tiny RFB server asking VNC authentication with the
//     vncticket (a VM with "vga: none" or "vga: serialN" has no display).
//   - What real clusters do that naive fakes do not: a full clone copies the
//     template's firewall (rules, options, IP sets); vzdump archives a VM's firewall
//     config and a restore writes it over the target's, even onto a new vmid; POST config and resize check the digest inside their task
//     ("detected modified configuration" as the exit status); /cluster/resources shows
//     VM states as of pvestatd's last refresh (StatusLag) while status/current is live.
//   - Every call's parameters are checked against Proxmox's API schema (the subset in
//     apischema.json, from pve-docs' apidata.js) as pveproxy does: an undeclared
//     parameter or a value of the wrong type or outside its enum is a 400. Every
//     answer's data is checked against the same subset's return schemas (types,
//     required properties, enums) before it is sent: a mismatch is the fake's bug and
//     answers 500 (Config.SkipAnswerCheck turns that off).
//
// Request bodies may be form-encoded or JSON (pveproxy accepts both; go-proxmox sends
// JSON). Errors answer like pveproxy: the status code plus {"data":null,"message":...}
// and, for parameter errors, "errors".
package pvefake

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
)

// Defaults of a zero Config.
const (
	DefaultTokenID         = "vmplane@pve!driver"
	DefaultTokenSecret     = "5f3c1e2a-7b9d-4c41-9a0e-2d6b8f4e1c37"
	DefaultConsoleUser     = "vmconsole@pve"
	DefaultConsolePassword = "console-pass-8d1f"
	DefaultTaskPolls       = 2
	DefaultCloneLockReads  = 1
)

// Config sets up a fake cluster. The zero value is a three-node cluster with three
// templates (9000 debian-12 and 9001 ubuntu-24.04 on shared storage on pve1, 9002
// rocky-9 on pve2's local storage; the driver also resolves them by the sim's ids
// "tpl-debian-12", "tpl-ubuntu-24.04", "tpl-rocky-9") and no machines.
type Config struct {
	// Nodes is the number of nodes, named pve1..pveN (default 3).
	Nodes int
	// TokenID and TokenSecret are the one API token the fake accepts (defaults
	// DefaultTokenID, DefaultTokenSecret).
	TokenID     string
	TokenSecret string
	// ConsoleUser and ConsolePassword are the one pve-realm user that may log in through
	// /access/ticket; it holds only VM.Console (defaults DefaultConsoleUser/Password).
	ConsoleUser     string
	ConsolePassword string
	// TaskPolls is how many status polls a task answers "running" before it stops
	// (default 2; negative: tasks finish on the first poll).
	TaskPolls int
	// CloneLockReads is how many config reads still show lock=clone after the clone
	// task stopped, as Proxmox clears the lock a moment after the worker (default 1;
	// negative: none).
	CloneLockReads int
	// NoTemplates leaves out the default templates.
	NoTemplates bool
	// Now is the clock of rrddata, backups, tickets and pvestatd (default time.Now).
	Now func() time.Time
	// StatusLag is pvestatd's refresh interval: /cluster/resources shows VM statuses as
	// they were at its last refresh, which happens at most every StatusLag of Now (real
	// Proxmox: 10 s). Zero shows them live. GET status/current is always live.
	StatusLag time.Duration
	// RRDLayout is the rrddata layout of the Proxmox VE version the fake plays:
	// "pve9" (default; PVE 9's resolutions) or "pve8" (before 9: 70 points per
	// timeframe above the hour, no decade). /version answers that version.
	RRDLayout string
	// SkipAnswerCheck turns off checking every answer's data against the return
	// schema in apischema.json before it is sent (on by default, so every test using
	// the fake also tests that the fake answers as Proxmox does).
	SkipAnswerCheck bool
	// WebsocketIdle is how long pveproxy keeps a display's websocket on which the
	// client sent nothing (no message, no ping) before it closes it; 0: for ever.
	WebsocketIdle time.Duration
	// Permissions is what GET /access/permissions answers for the token: path →
	// privileges (default: AllPrivileges on "/").
	Permissions map[string][]string
}

// Server is a running fake Proxmox VE API. All methods are safe for concurrent use.
type Server struct {
	srv *httptest.Server
	cfg Config

	mu       sync.Mutex
	nodes    []*node
	storages []*storage
	vms      map[int]*vm
	tasks    map[string]*task
	backups  map[string]*backup  // by volid
	isos     map[string]*isoFile // by isoKey
	tickets  map[string]ticket   // PVEAuthCookie value → session
	vnc      map[string]vncTicket
	faults   []*faultRule
	requests []Request
	pidSeq   int
	macSeq   int
	// pings counts the websocket pings displays received (WebsocketPings).
	pings int
	// held counts the HoldTasks not yet released: while positive no task advances.
	held int
	// statAt and statSnap are pvestatd's last refresh and the VM statuses it saw.
	statAt   time.Time
	statSnap map[int]string
	portSeq  int
	wsConns  map[*websocket.Conn]bool
}

// New starts a fake Proxmox API on an ephemeral local port with a self-signed
// certificate. Close it when done.
func New(cfg Config) *Server {
	if cfg.Nodes <= 0 {
		cfg.Nodes = 3
	}
	if cfg.TokenID == "" {
		cfg.TokenID = DefaultTokenID
	}
	if cfg.TokenSecret == "" {
		cfg.TokenSecret = DefaultTokenSecret
	}
	if cfg.ConsoleUser == "" {
		cfg.ConsoleUser = DefaultConsoleUser
	}
	if cfg.ConsolePassword == "" {
		cfg.ConsolePassword = DefaultConsolePassword
	}
	switch {
	case cfg.TaskPolls == 0:
		cfg.TaskPolls = DefaultTaskPolls
	case cfg.TaskPolls < 0:
		cfg.TaskPolls = 1
	}
	switch {
	case cfg.CloneLockReads == 0:
		cfg.CloneLockReads = DefaultCloneLockReads
	case cfg.CloneLockReads < 0:
		cfg.CloneLockReads = 0
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{
		cfg:     cfg,
		vms:     make(map[int]*vm),
		tasks:   make(map[string]*task),
		backups: make(map[string]*backup),
		isos:    make(map[string]*isoFile),
		tickets: make(map[string]ticket),
		vnc:     make(map[string]vncTicket),
		pidSeq:  0x1a2b,
		portSeq: 5900,
		wsConns: make(map[*websocket.Conn]bool),
	}
	var names []string
	for i := 1; i <= cfg.Nodes; i++ {
		name := fmt.Sprintf("pve%d", i)
		names = append(names, name)
		s.nodes = append(s.nodes, &node{name: name, online: true, maxcpu: 32, maxmem: 128 << 30, maxdisk: 100 << 30})
	}
	s.storages = []*storage{
		{name: "local", content: "backup,iso,vztmpl", plugin: "dir", nodes: names, size: 100 << 30},
		{name: "local-lvm", content: "images,rootdir", plugin: "lvmthin", nodes: names, size: 1 << 40},
		{name: "cephpool", content: "images", plugin: "rbd", shared: true, nodes: names, size: 8 << 40},
	}
	if !cfg.NoTemplates {
		s.seedTemplates()
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	// Clients that refuse the self-signed certificate are expected (TLS tests); keep
	// the server's handshake complaints out of test output.
	s.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.srv.StartTLS()
	return s
}

// Close hangs up open consoles and shuts the listener down.
func (s *Server) Close() {
	s.mu.Lock()
	for c := range s.wsConns {
		c.Close()
	}
	s.mu.Unlock()
	s.srv.Close()
}

// URL is the API base a driver is configured with: https://127.0.0.1:port/api2/json.
func (s *Server) URL() string { return s.srv.URL + "/api2/json" }

// Certificate is the server's self-signed certificate.
func (s *Server) Certificate() *x509.Certificate { return s.srv.Certificate() }

// CertPEM is the server certificate in PEM, for a driver's CA file.
func (s *Server) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
}

// Fingerprint is the SHA-256 fingerprint of the certificate as Proxmox shows it
// (upper-case hex pairs separated by colons).
func (s *Server) Fingerprint() string {
	sum := sha256.Sum256(s.srv.Certificate().Raw)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// TokenID is the API token id the fake accepts.
func (s *Server) TokenID() string { return s.cfg.TokenID }

// TokenSecret is the API token secret the fake accepts.
func (s *Server) TokenSecret() string { return s.cfg.TokenSecret }

// ConsoleUser returns the console user's name and password.
func (s *Server) ConsoleUser() (user, password string) {
	return s.cfg.ConsoleUser, s.cfg.ConsolePassword
}

// Request is one request the fake answered: its method, decoded path below /api2/json,
// and the route pattern it matched ("" for none), e.g.
// "/nodes/{node}/qemu/{vmid}/status/{action}".
type Request struct {
	Method string
	Path   string
	Route  string
	Status int
	// Schema is the call of the embedded API schema whose parameters the request
	// was checked against ("POST /nodes/{node}/qemu/{vmid}/config"), "" for a call the
	// schema subset does not describe.
	Schema string
	// AnswerErrors are the ways the fake's answer broke the call's return schema
	// (the request was then answered 500); nil for a valid answer.
	AnswerErrors []string
}

// Requests returns every request answered so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ResetRequests forgets the request log.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// Count returns how many requests matched method ("" any) and path, where path is a
// route pattern or a concrete path.
func (s *Server) Count(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if (method == "" || r.Method == method) && (r.Route == path || r.Path == path) {
			n++
		}
	}
	return n
}

// HoldTasks keeps every task running, however often it is polled, until the returned
// function is called (once; later calls do nothing): a Proxmox task that outlives the
// process that started it, a clone or migration still under way when vmplane restarts.
func (s *Server) HoldTasks() (release func()) {
	s.mu.Lock()
	s.held++
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.held--
			s.mu.Unlock()
		})
	}
}

// Fault is an injected failure. It matches requests by method and path and then, in
// this order: waits Delay (or until the client gives up), answers Status with Message,
// or lets the request succeed but makes the task it starts end with TaskExit.
type Fault struct {
	// Method matches the HTTP method; "" matches any.
	Method string
	// Path matches a route pattern, e.g. "/nodes/{node}/qemu/{vmid}/status/{action}"
	// (every power action of every VM), or a concrete path below /api2/json, e.g.
	// "/nodes/pve1/qemu/100/status/start"; "" matches any.
	Path string
	// Delay is latency added before answering.
	Delay time.Duration
	// Status, when non-zero, is the HTTP status answered instead of handling the request.
	Status int
	// Message is the error message of Status (default: the status text).
	Message string
	// TaskExit, when set, is the exitstatus of the task the request starts; the task
	// changes nothing.
	TaskExit string
	// Times is how many matching requests the fault applies to; 0 means until removed.
	Times int
	// After lets this many matching requests through untouched before the fault
	// applies: a push that fails halfway.
	After int
	// Hook, when set, runs (without the fake's lock held) before the request is
	// handled: another client's change landing between a driver's read and its write.
	Hook func()
}

type faultRule struct {
	Fault
	used int
	seen int
}

// Inject adds a fault and returns a function that removes it.
func (s *Server) Inject(f Fault) (remove func()) {
	r := &faultRule{Fault: f}
	s.mu.Lock()
	s.faults = append(s.faults, r)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, x := range s.faults {
			if x == r {
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
				return
			}
		}
	}
}

// faultLocked finds the first live fault for a request and consumes one use of it.
func (s *Server) faultLocked(method, path, route string) *Fault {
	for i, f := range s.faults {
		if f.Method != "" && f.Method != method {
			continue
		}
		if f.Path != "" && f.Path != path && f.Path != route {
			continue
		}
		if f.seen < f.After {
			f.seen++
			continue
		}
		f.used++
		if f.Times > 0 && f.used >= f.Times {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		c := f.Fault
		return &c
	}
	return nil
}

// SetNodeOnline switches a node on or off line.
func (s *Server) SetNodeOnline(name string, online bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nodeLocked(name)
	if n == nil {
		return fmt.Errorf("pvefake: no node %q", name)
	}
	n.online = online
	return nil
}

// VMSpec describes a VM added behind the driver's back with AddVM.
type VMSpec struct {
	VMID     int    // 0: the next free vmid
	Node     string // default pve1
	Name     string // default vm-<vmid>
	Status   string // running, stopped (default) or paused
	Cores    int    // default 1
	MemoryMB int    // default 1024
	DiskGB   int    // scsi0 size (default 10)
	Storage  string // scsi0 storage (default local-lvm)
	Template bool
	// Config adds or overrides raw config keys ("net1": "virtio=...,bridge=vmbr1").
	Config map[string]string
}

// AddVM creates a VM directly, as an operator would in the Proxmox GUI, and returns
// its vmid. It has net0 on vmbr0 and a serial0 socket unless Config says otherwise.
func (s *Server) AddVM(spec VMSpec) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if spec.VMID == 0 {
		spec.VMID = s.nextIDLocked()
	}
	if _, ok := s.vms[spec.VMID]; ok {
		return 0, fmt.Errorf("pvefake: vmid %d exists", spec.VMID)
	}
	if spec.Node == "" {
		spec.Node = "pve1"
	}
	if s.nodeLocked(spec.Node) == nil {
		return 0, fmt.Errorf("pvefake: no node %q", spec.Node)
	}
	if spec.Name == "" {
		spec.Name = fmt.Sprintf("vm-%d", spec.VMID)
	}
	if spec.Status == "" {
		spec.Status = "stopped"
	}
	if spec.Cores == 0 {
		spec.Cores = 1
	}
	if spec.MemoryMB == 0 {
		spec.MemoryMB = 1024
	}
	if spec.DiskGB == 0 {
		spec.DiskGB = 10
	}
	if spec.Storage == "" {
		spec.Storage = "local-lvm"
	}
	prefix := "vm"
	if spec.Template {
		prefix = "base"
	}
	cfg := map[string]string{
		"name":    spec.Name,
		"cores":   fmt.Sprint(spec.Cores),
		"sockets": "1",
		"memory":  fmt.Sprint(spec.MemoryMB),
		"scsihw":  "virtio-scsi-pci",
		"scsi0":   fmt.Sprintf("%s:%s-%d-disk-0,size=%dG", spec.Storage, prefix, spec.VMID, spec.DiskGB),
		"ide2":    fmt.Sprintf("%s:vm-%d-cloudinit,media=cdrom", spec.Storage, spec.VMID),
		"net0":    fmt.Sprintf("virtio=%s,bridge=vmbr0", s.newMACLocked()),
		"serial0": "socket",
		"ostype":  "l26",
		"boot":    "order=scsi0",
	}
	if spec.Template {
		cfg["template"] = "1"
	}
	for k, v := range spec.Config {
		if v == "" {
			delete(cfg, k)
			continue
		}
		cfg[k] = v
	}
	status := spec.Status
	if spec.Template {
		status = "stopped"
	}
	s.vms[spec.VMID] = &vm{
		vmid: spec.VMID, node: spec.Node, status: status, config: cfg,
		created: s.cfg.Now().Add(-10 * 24 * time.Hour), version: 1,
	}
	return spec.VMID, nil
}

// seedTemplates adds the default templates.
func (s *Server) seedTemplates() {
	for _, t := range []VMSpec{
		{VMID: 9000, Node: "pve1", Name: "debian-12", DiskGB: 10, Storage: "cephpool", Template: true},
		{VMID: 9001, Node: "pve1", Name: "ubuntu-24.04", DiskGB: 10, Storage: "cephpool", Template: true},
		{VMID: 9002, Node: "pve2", Name: "rocky-9", DiskGB: 12, Storage: "local-lvm", Template: true},
	} {
		if _, err := s.AddVM(t); err != nil {
			panic(err)
		}
	}
}

// RemoveVM deletes a VM behind the driver's back; it reports whether it existed.
func (s *Server) RemoveVM(vmid int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.vms[vmid]
	delete(s.vms, vmid)
	return ok
}

// SetVMStatus sets a VM's power status directly: running, stopped or paused.
func (s *Server) SetVMStatus(vmid int, status string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return fmt.Errorf("pvefake: no vm %d", vmid)
	}
	v.status = status
	return nil
}

// SetLock sets (or with "" clears) a VM's lock, as a running backup or clone would.
func (s *Server) SetLock(vmid int, lock string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return fmt.Errorf("pvefake: no vm %d", vmid)
	}
	v.lock = lock
	v.lockReads = 0
	return nil
}

// VM returns a copy of a VM's node, status and raw config (cipassword in clear, as the
// driver sent it), and whether it exists.
func (s *Server) VM(vmid int) (node, status string, config map[string]string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return "", "", nil, false
	}
	cfg := make(map[string]string, len(v.config))
	for k, val := range v.config {
		cfg[k] = val
	}
	if v.lock != "" {
		cfg["lock"] = v.lock
	}
	return v.node, v.status, cfg, true
}

// FirewallRules returns a VM's firewall rules in position order, each as its fields
// ("type", "action", "proto", "dport", "source", "dest", "enable", "comment").
func (s *Server) FirewallRules(vmid int) []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return nil
	}
	out := make([]map[string]string, len(v.rules))
	for i, r := range v.rules {
		out[i] = copyMap(r)
	}
	return out
}

// TouchConfig changes a VM's config digest, as an operator's edit in the GUI would.
func (s *Server) TouchConfig(vmid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.vms[vmid]; ok {
		v.version++
	}
}

// TouchFirewall changes a VM's firewall digest, as an operator's edit would.
func (s *Server) TouchFirewall(vmid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.vms[vmid]; ok {
		v.fwVersion++
	}
}

// SetFirewallRules replaces a VM's (or template's) firewall rules directly, each as
// its fields, as an operator would in the GUI.
func (s *Server) SetFirewallRules(vmid int, rules []map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return fmt.Errorf("pvefake: no vm %d", vmid)
	}
	v.rules = nil
	for _, r := range rules {
		v.rules = append(v.rules, copyMap(r))
	}
	v.fwVersion++
	return nil
}

// FirewallOptions returns a VM's firewall options ("enable": "1", ...).
func (s *Server) FirewallOptions(vmid int) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return nil
	}
	return copyMap(v.fwOptions)
}

// IPSet returns the entries (cidr as Proxmox stores it, newest first) of one of a
// VM's firewall IP sets, and whether the set exists.
func (s *Server) IPSet(vmid int, name string) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return nil, false
	}
	set, ok := v.ipsets[name]
	if !ok {
		return nil, false
	}
	out := make([]string, len(set.entries))
	for i, e := range set.entries {
		out[i] = e.cidr
	}
	return out, true
}

// IPSets returns the names of a VM's firewall IP sets, sorted.
func (s *Server) IPSets(vmid int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return nil
	}
	return v.ipsetNames()
}

// SetIPSet replaces (or creates) one of a VM's (or template's) firewall IP sets with
// entries stored exactly as given, as an operator's edit of the .fw file would;
// nil entries delete the set.
func (s *Server) SetIPSet(vmid int, name string, entries []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return fmt.Errorf("pvefake: no vm %d", vmid)
	}
	if entries == nil {
		delete(v.ipsets, name)
		return nil
	}
	if v.ipsets == nil {
		v.ipsets = map[string]*ipSet{}
	}
	set := &ipSet{}
	for _, e := range entries {
		set.entries = append(set.entries, ipSetEntry{cidr: e})
	}
	v.ipsets[name] = set
	return nil
}

// SetFirewallOption sets (or with "" deletes) one of a VM's firewall options
// directly, as an operator would in the GUI.
func (s *Server) SetFirewallOption(vmid int, key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return fmt.Errorf("pvefake: no vm %d", vmid)
	}
	if value == "" {
		delete(v.fwOptions, key)
	} else {
		if v.fwOptions == nil {
			v.fwOptions = map[string]string{}
		}
		v.fwOptions[key] = value
	}
	v.fwVersion++
	return nil
}

// AddStorage adds a storage on the named nodes (all nodes when none are named).
func (s *Server) AddStorage(name string, shared bool, content string, nodes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(nodes) == 0 {
		for _, n := range s.nodes {
			nodes = append(nodes, n.name)
		}
	}
	s.storages = append(s.storages, &storage{name: name, content: content, plugin: "dir", shared: shared, nodes: nodes, size: 1 << 40})
}

// Backups returns the volids of every backup archive, sorted.
func (s *Server) Backups() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id := range s.backups {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// randomHex returns n random bytes in hex, for tickets.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
