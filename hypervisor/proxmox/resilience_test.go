package proxmox

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvehttp"
	"github.com/vmplane/vmplane/internal/testwait"
)

const resourcesRoute = "/cluster/resources"

func TestReadsRetriedWritesNot(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{})

	// A read that keeps failing is tried three times, then reported as unavailable.
	remove := f.Inject(pvefake.Fault{Method: "GET", Path: resourcesRoute, Status: 500, Message: "pmxcfs: cluster not ready - no quorum?"})
	f.ResetRequests()
	_, err := d.Machine(bg, hypervisor.Ref{VMID: id})
	wantErr(t, "failing read", err, hypervisor.ErrUnavailable, apierr.ErrUnavailable)
	wantContains(t, "failing read", err, "no quorum")
	if n := f.Count("GET", resourcesRoute); n != pvehttp.ReadAttempts {
		t.Errorf("failing read: Proxmox saw %d attempts; want %d", n, pvehttp.ReadAttempts)
	}
	remove()

	// A read that fails twice and then answers succeeds.
	f.Inject(pvefake.Fault{Method: "GET", Path: resourcesRoute, Status: 503, Times: 2})
	if _, err := d.Machine(bg, hypervisor.Ref{VMID: id}); err != nil {
		t.Errorf("read failing twice: got %v; want success on the third attempt", err)
	}

	// A refusal in a 500 is not retried: it will not change.
	f.ResetRequests()
	_, err = d.vmConfig(bg, "pve2", id) // the VM is on pve1: "does not exist" on pve2
	wantErr(t, "config on the wrong node", err, hypervisor.ErrMachineNotFound)
	if n := f.Count("GET", "/nodes/{node}/qemu/{vmid}/config"); n != 1 {
		t.Errorf("refusal: Proxmox saw %d attempts; want 1", n)
	}

	// A write is sent once, whatever happens.
	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/status/{action}", Status: 500, Message: "got timeout"})
	f.ResetRequests()
	err = d.Power(bg, hypervisor.Ref{VMID: id}, hypervisor.ActionStart)
	wantErr(t, "failing write", err, hypervisor.ErrUnavailable)
	if n := f.Count("POST", "/nodes/{node}/qemu/{vmid}/status/{action}"); n != 1 {
		t.Errorf("failing write: Proxmox saw %d POSTs; want exactly 1", n)
	}
}

func TestInventoryStopsAtFirstFailure(t *testing.T) {
	d, f := newTest(t, pvefake.Config{NoTemplates: true})
	for range 20 {
		addVM(t, f, pvefake.VMSpec{})
	}
	f.Inject(pvefake.Fault{Method: "GET", Path: "/nodes/{node}/qemu/{vmid}/config", Status: 500, Message: "proxy loop"})
	_, err := d.Inventory(bg)
	wantErr(t, "inventory", err, hypervisor.ErrUnavailable)
	wantContains(t, "inventory", err, "proxy loop")
	if n, limit := f.Count("GET", "/nodes/{node}/qemu/{vmid}/config"), (configReaders+1)*pvehttp.ReadAttempts; n > limit {
		t.Errorf("config reads after the first failure: got %d; want at most %d", n, limit)
	}
}

func TestTimeouts(t *testing.T) {
	// A second is long enough for a loaded machine to connect and send each attempt
	// (at 150 ms the write's POST sometimes never left), short against the 5 s delay.
	d, f := newTest(t, pvefake.Config{}, func(c *Config) { c.RequestTimeout = time.Second })
	id := addVM(t, f, pvefake.VMSpec{})
	remove := f.Inject(pvefake.Fault{Method: "GET", Path: resourcesRoute, Delay: 5 * time.Second})
	_, err := d.Machine(bg, hypervisor.Ref{VMID: id})
	wantErr(t, "slow read", err, hypervisor.ErrUnavailable, apierr.ErrUnavailable)
	wantContains(t, "slow read", err, "did not answer", "1s")
	// The client gives up on an attempt after its timeout, possibly before a loaded fake
	// has counted it: wait for the count rather than read it at once.
	n := 0
	testwait.Poll(testwait.Timeout, func() bool { n = f.Count("GET", resourcesRoute); return n >= pvehttp.ReadAttempts })
	if n != pvehttp.ReadAttempts {
		t.Errorf("slow read: Proxmox saw %d attempts; want %d", n, pvehttp.ReadAttempts)
	}
	remove()

	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/status/{action}", Delay: 5 * time.Second})
	f.ResetRequests()
	err = d.Power(bg, hypervisor.Ref{VMID: id}, hypervisor.ActionStart)
	wantErr(t, "slow write", err, hypervisor.ErrUnavailable)
	testwait.Poll(testwait.Timeout, func() bool { n = f.Count("POST", "/nodes/{node}/qemu/{vmid}/status/{action}"); return n >= 1 })
	if n != 1 {
		t.Errorf("slow write: Proxmox saw %d POSTs; want exactly 1", n)
	}
}

func TestTaskFailure(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{})
	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/pve1/qemu/" + itoa(id) + "/status/start",
		TaskExit: "start failed: QEMU exited with code 1", Times: 1})
	err := d.Power(bg, hypervisor.Ref{VMID: id}, hypervisor.ActionStart)
	wantErr(t, "failing task", err, hypervisor.ErrTaskFailed, apierr.ErrInternal)
	wantContains(t, "failing task", err, "start failed: QEMU exited with code 1", "qmstart")
	if st := fakeStatus(t, f, id); st != "stopped" {
		t.Errorf("after a failed start: got %s; want stopped", st)
	}
}

func TestForbiddenTokenIsUnavailable(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{})
	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/status/{action}", Status: 403,
		Message: "Permission check failed (/vms/" + itoa(id) + ", VM.PowerMgmt)"})
	err := d.Power(bg, hypervisor.Ref{VMID: id}, hypervisor.ActionStart)
	// A token without a privilege is the operator's misconfiguration: never a 403 to a tenant.
	wantErr(t, "403", err, hypervisor.ErrUnavailable, apierr.ErrUnavailable)
	if ae := apierr.From(err); ae.Status != 503 {
		t.Errorf("403: got status %d; want 503", ae.Status)
	}
	wantContains(t, "403", err, "VM.PowerMgmt", "/vms/"+itoa(id), "/status/start", f.TokenID())
}

func TestBadTokenAndUnreachable(t *testing.T) {
	bad, _ := newTest(t, pvefake.Config{}, func(c *Config) { c.TokenSecret = "00000000-wrong-secret" })
	err := bad.Ping(bg)
	wantErr(t, "wrong secret", err, hypervisor.ErrUnavailable)
	wantContains(t, "wrong secret", err, "401")
	_, err = bad.Inventory(bg)
	wantErr(t, "wrong secret inventory", err, hypervisor.ErrUnavailable)

	d, err := New(Config{URL: "https://127.0.0.1:1/api2/json", TokenID: "a@pve!b", TokenSecret: "x", RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = d.Ping(bg)
	wantErr(t, "unreachable", err, hypervisor.ErrUnavailable)
	wantContains(t, "unreachable", err, "unreachable")

	ok, _ := newTest(t, pvefake.Config{})
	wantErr(t, "ping", ok.Ping(bg))
	cctx, cancel := context.WithCancel(bg)
	cancel()
	wantErr(t, "ping cancelled", ok.Ping(cctx), context.Canceled)
}

func TestTLS(t *testing.T) {
	f := pvefake.New(pvefake.Config{})
	defer f.Close()
	pin := f.Fingerprint()
	f1 := func(name string, mod func(*Config), targets ...error) {
		t.Helper()
		cfg := Config{URL: f.URL(), TokenID: f.TokenID(), TokenSecret: f.TokenSecret(), RequestTimeout: 2 * time.Second}
		mod(&cfg)
		d, err := New(cfg)
		if err != nil {
			t.Fatalf("%s: New: %v", name, err)
		}
		defer d.Close()
		err = d.Ping(bg)
		wantErr(t, name, err, targets...)
		if len(targets) > 0 {
			wantContains(t, name, err, "TLS")
		}
	}
	f1("verification on by default", func(*Config) {}, hypervisor.ErrUnavailable)
	f1("CAFile", func(c *Config) { c.CAFile = writeCA(t, f) })
	f1("fingerprint with colons", func(c *Config) { c.Fingerprint = pin })
	f1("fingerprint lower case, no colons", func(c *Config) { c.Fingerprint = strings.ToLower(strings.ReplaceAll(pin, ":", "")) })
	f1("wrong fingerprint", func(c *Config) { c.Fingerprint = strings.Repeat("AB:", 31) + "AB" }, hypervisor.ErrUnavailable)
	f1("wrong fingerprint wins over InsecureSkipVerify", func(c *Config) {
		c.Fingerprint, c.InsecureSkipVerify = strings.Repeat("00", 32), true
	}, hypervisor.ErrUnavailable)
	f1("InsecureSkipVerify", func(c *Config) { c.InsecureSkipVerify = true })
}

func TestNewValidates(t *testing.T) {
	good := Config{URL: "https://pve.example.com:8006", TokenID: "vmplane@pve!driver", TokenSecret: "s3cr3t-value"}
	f1 := func(name string, mod func(*Config), want string) {
		t.Helper()
		cfg := good
		mod(&cfg)
		d, err := New(cfg)
		if want == "" {
			if err != nil {
				t.Errorf("%s: got %v; want no error", name, err)
				return
			}
			d.Close()
			return
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v; want an error containing %q", name, err, want)
		}
		if err != nil && strings.Contains(err.Error(), cfg.TokenSecret) && cfg.TokenSecret != "" {
			t.Errorf("%s: the error %q shows the token secret", name, err)
		}
	}
	f1("good", func(*Config) {}, "")
	f1("no URL", func(c *Config) { c.URL = "" }, "URL")
	f1("no token", func(c *Config) { c.TokenID, c.TokenSecret = "", "" }, "TokenID")
	f1("no secret", func(c *Config) { c.TokenSecret = "" }, "TokenSecret")
	f1("token id without realm", func(c *Config) { c.TokenID = "vmplane!driver" }, "user@realm!tokenname")
	f1("not https", func(c *Config) { c.URL = "http://pve:8006" }, "https")
	f1("credentials in URL", func(c *Config) { c.URL = "https://root:pw@pve:8006" }, "credentials")
	f1("bad fingerprint", func(c *Config) { c.Fingerprint = "AB:CD" }, "Fingerprint")
	f1("missing CA file", func(c *Config) { c.CAFile = "/nonexistent/ca.pem" }, "CAFile")
	f1("console user without password", func(c *Config) { c.ConsoleUser = "vmconsole@pve" }, "ConsolePassword")
	f1("console user without realm", func(c *Config) { c.ConsoleUser, c.ConsolePassword = "vmconsole", "pw" }, "realm")

	d, err := New(good)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := d.base.String(); got != "https://pve.example.com:8006/api2/json" {
		t.Errorf("base URL: got %s; want /api2/json appended", got)
	}
	if d.cfg.RequestTimeout != 15*time.Second || d.cfg.TaskPollInterval != time.Second || d.cfg.DefaultStorage != "local-lvm" ||
		d.cfg.DefaultBridge != "vmbr0" || d.cfg.BackupStorage != "local" || d.Name() != "proxmox" {
		t.Errorf("defaults: got %v", d.cfg)
	}
}

// TestSecretsNeverLeak provokes failures of every kind and checks that neither the
// token secret, the console password nor a cloud-init password shows in an error or a
// log line (captured at debug level).
func TestSecretsNeverLeak(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	log := zap.New(core)
	const (
		wrongSecret = "11111111-2222-3333-4444-wrongsecret"
		password    = "cloud-init-hunter2"
	)
	d, f := newTest(t, pvefake.Config{}, func(c *Config) { c.Logger = log })
	secrets := []string{f.TokenSecret(), wrongSecret, password}
	_, consolePass := f.ConsoleUser()
	secrets = append(secrets, consolePass)
	var errs []error
	collect := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	id := addVM(t, f, pvefake.VMSpec{Status: "running"})

	// Proxmox (or a proxy) echoing a secret back must not carry it through.
	remove := f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/config", Status: 400,
		Message: "invalid cipassword '" + password + "' for token " + f.TokenSecret()})
	_, err := d.Create(bg, hypervisor.CreateSpec{TemplateID: "tpl-9000", Password: password})
	collect(err)
	remove()
	f.Inject(pvefake.Fault{Method: "GET", Path: resourcesRoute, Status: 500, Message: "boom", Times: 3})
	_, err = d.Inventory(bg)
	collect(err)
	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/status/{action}", TaskExit: "failed: " + password, Times: 1})
	collect(d.Power(withSecrets(bg, password), hypervisor.Ref{VMID: id}, hypervisor.ActionStop))
	c, err := d.Console(bg, hypervisor.Ref{VMID: id})
	collect(err)
	if c != nil {
		c.Close()
	}

	bad, _ := newTest(t, pvefake.Config{}, func(c *Config) {
		c.Logger, c.TokenSecret, c.ConsolePassword = log, wrongSecret, "wrong-"+consolePass
	})
	collect(bad.Ping(bg))
	_, err = bad.Inventory(bg)
	collect(err)
	_, err = bad.Console(bg, hypervisor.Ref{VMID: id})
	collect(err)
	if len(errs) < 6 {
		t.Fatalf("provoked %d errors; want at least 6: %v", len(errs), errs)
	}
	cfg := Config{TokenSecret: f.TokenSecret(), ConsolePassword: consolePass}
	texts := []string{fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg)}
	for _, err := range errs {
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", apierr.From(err)))
	}
	for _, e := range logs.All() {
		texts = append(texts, e.Message+" "+fmt.Sprint(e.ContextMap()))
	}
	if logs.Len() == 0 {
		t.Errorf("no log lines captured; want the failures logged")
	}
	for _, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("a secret leaked: %q contains %q", text, s)
			}
		}
	}
}

// TestNoGoroutineLeak runs many failing calls (errors, timeouts, refused auth) and
// consoles, and checks that the goroutine count comes back to where it started.
func TestNoGoroutineLeak(t *testing.T) {
	d, f := newTest(t, pvefake.Config{}, func(c *Config) { c.RequestTimeout = 100 * time.Millisecond })
	bad, _ := newTest(t, pvefake.Config{}, func(c *Config) { c.TokenSecret = "wrong" })
	id := addVM(t, f, pvefake.VMSpec{Status: "running"})
	// The count after the calls is polled until it is back (below): goroutines of
	// closed connections may take a moment to end, and only a leak keeps them.
	settle := func() int {
		d.Close()
		bad.Close()
		return runtime.NumGoroutine()
	}
	// Warm up (connections, the resources cache); a loaded machine may miss the short
	// request timeout of this test on a try or two.
	var err error
	for range 20 {
		if _, err = d.Machine(bg, hypervisor.Ref{VMID: id}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	before := settle()

	remove := f.Inject(pvefake.Fault{Method: "GET", Path: resourcesRoute, Status: 502})
	for range 30 {
		_, _ = d.Machine(bg, hypervisor.Ref{VMID: id})
		_ = bad.Ping(bg)
	}
	remove()
	remove = f.Inject(pvefake.Fault{Method: "GET", Path: "/version", Delay: time.Second})
	for range 5 {
		_ = d.Ping(bg)
	}
	remove()
	for range 5 {
		// The short request timeout may be missed on a loaded machine, as above: what
		// counts is that each console, once open, goes away whole when closed.
		var c hypervisor.Console
		for range 20 {
			if c, err = d.Console(bg, hypervisor.Ref{VMID: id}); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}

	after := settle()
	testwait.Poll(testwait.Timeout, func() bool { after = settle(); return after <= before })
	if after > before {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Errorf("goroutines: got %d after the failing calls; want at most %d\n%s", after, before, buf[:n])
	}
}

// TestInventoryNodeUnreachable: a node that has just died still shows online in
// /cluster/resources, but its calls answer 595. The inventory reports it offline and
// its VMs from the resource list, instead of failing as a whole.
func TestInventoryNodeUnreachable(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	up := addVM(t, f, pvefake.VMSpec{Node: "pve1", Status: "running"})
	down := addVM(t, f, pvefake.VMSpec{Node: "pve2", Status: "running"})
	f.Inject(pvefake.Fault{Method: "GET", Path: "/nodes/pve2/qemu/" + strconv.Itoa(down) + "/config", Status: 595, Message: "No route to host"})
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatalf("inventory with pve2 unreachable: %v", err)
	}
	for _, n := range inv.Nodes {
		if want := map[bool]hypervisor.NodeStatus{true: hypervisor.NodeOffline, false: hypervisor.NodeOnline}[n.ID == "pve2"]; n.Status != want {
			t.Errorf("node %s: got %s; want %s", n.ID, n.Status, want)
		}
	}
	seen := map[int]hypervisor.Machine{}
	for _, m := range inv.Machines {
		seen[m.VMID] = m
	}
	if m, ok := seen[up]; !ok || len(m.Interfaces) != 1 {
		t.Errorf("machine on pve1: got %+v; want it read in full", m)
	}
	if _, ok := seen[down]; !ok {
		t.Errorf("machine on the unreachable node: missing; want its summary")
	}
}
