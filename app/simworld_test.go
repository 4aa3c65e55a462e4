package app

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/internal/testwait"
)

// resourceMachine GETs a machine through the generic resource route, as a user would.
func (s *testServer) resourceMachine(tok, id string) machines.Machine {
	s.t.Helper()
	r := s.do(req{method: "GET", path: "/api/resources/machines/" + id, token: tok})
	expect(s.t, r, 200, "")
	var m machines.Machine
	r.decode(s.t, &m)
	return m
}

// The simulated cluster lives in the data directory: a machine created, powered off,
// given a disk and backed up on the sim driver is there after a clean restart of a new
// process (a new driver, as `vmplane serve` builds one), with the same status, disks,
// interfaces and backups, and the hypervisor still knows its backups.
func TestSimWorldSurvivesRestart(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Keep", nil)
	m := s.provision(a.Token, smallMachine)
	s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: admin})
	s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/disks", token: admin, body: map[string]any{"size_gb": 25}})
	b := s.createBackupSchedule(a.Token, m.ID, map[string]any{"cron": everySecond, "retention": 5})
	testwait.Eventually(t, "a succeeded backup run", func() bool {
		b = s.backupSchedule(a.Token, b.ID)
		return b.LastStatus != nil && *b.LastStatus == schedules.RunSucceeded
	})
	s.disableBackupSchedule(a.Token, b.ID)

	before := s.resourceMachine(a.Token, m.ID)
	if before.Status != machines.StatusStopped || len(before.Disks) != 2 {
		t.Fatalf("got %+v; want a stopped machine with two disks", before)
	}
	backups := s.backupsOf(a.Token, m.ID)
	onHV, err := s.sim.Backups(t.Context(), hypervisorRef(before))
	if err != nil || len(onHV) == 0 || len(onHV) != len(backups) {
		t.Fatalf("got %d backups on the hypervisor (%v) and %d on record; want the same, at least one", len(onHV), err, len(backups))
	}

	// A new process: a new driver built from the configuration, on the same data dir.
	s.stop()
	s.sim = nil
	s.cfg.Addr = "127.0.0.1:0"
	s.start()
	admin = s.adminToken()
	a.Token = s.login("keep@example.test", "tenant-password").Token
	if res := s.sync(admin); res.Machines.Removed != 0 || res.Machines.Added != 0 {
		t.Fatalf("got sync %+v after the restart; want nothing added or removed", res)
	}
	after := s.resourceMachine(a.Token, m.ID)
	if after.Status != before.Status || after.VMID != before.VMID || after.Node != before.Node ||
		!reflect.DeepEqual(after.Disks, before.Disks) || !reflect.DeepEqual(after.Interfaces, before.Interfaces) {
		t.Fatalf("after the restart got\n %+v\nwant\n %+v", after, before)
	}
	hv, err := s.sim.Machine(t.Context(), hypervisorRef(after))
	if err != nil || hv.State != hypervisor.StateStopped || len(hv.Disks) != 2 {
		t.Fatalf("got %+v, %v on the hypervisor; want the stopped machine with its two disks", hv, err)
	}
	onHVAfter, err := s.sim.Backups(t.Context(), hypervisorRef(after))
	if err != nil || !reflect.DeepEqual(onHVAfter, onHV) {
		t.Fatalf("got backups %+v, %v on the hypervisor after the restart; want %+v", onHVAfter, err, onHV)
	}
	// It goes on working: the backup can be deleted from the hypervisor, the machine
	// started.
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/backups/" + backups[0].ID, token: a.Token}), 204, "")
	s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/start", token: admin})
	if got := s.resourceMachine(a.Token, m.ID); got.Status != machines.StatusRunning {
		t.Fatalf("got status %s after a start; want running", got.Status)
	}
}

// Simulated machines have documentation addresses, and health checks of them are
// answered inside the simulator from the machine's power state: they pass while the
// machine runs and fail, refused, once it is stopped. No real host has these addresses
// (nothing outside loopback is reachable here at all), so a check that passes was
// answered without a connection.
func TestHealthCheckOfSimMachine(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Probed", nil)
	m := s.provision(a.Token, smallMachine)
	if len(m.Interfaces) == 0 || len(m.Interfaces[0].IPAddresses) == 0 {
		t.Fatalf("got %+v; want a machine with an address", m)
	}
	ip := m.Interfaces[0].IPAddresses[0]
	if !strings.HasPrefix(ip, "192.0.2.") {
		t.Fatalf("got address %s; want one of the documentation range 192.0.2.0/24", ip)
	}
	// A tenant's http check of its own machine, an operator's tcp check of it.
	r := s.do(req{method: "POST", path: "/api/resources/health-checks", token: a.Token, body: map[string]any{
		"name": "web", "type": "http", "target": "http://" + ip + ":8080/health", "interval_s": 1, "timeout_ms": 500,
		"expected_status": 200, "failure_threshold": 1}})
	expect(t, r, 201, "")
	var web monitoring.HealthCheck
	r.decode(t, &web)
	ssh := s.createCheck(admin, "/api/monitoring/health-checks", map[string]any{
		"name": "ssh", "type": "tcp", "target": ip + ":22", "interval_s": 1, "timeout_ms": 500, "failure_threshold": 1})
	for _, id := range []string{web.ID, ssh.ID} {
		testwait.Eventually(t, "the check of a running machine to pass", func() bool { return s.check(admin, id).Last.Status == monitoring.CheckPassing })
	}

	s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: admin})
	for _, id := range []string{web.ID, ssh.ID} {
		testwait.Eventually(t, "the check of a stopped machine to fail", func() bool {
			c := s.check(admin, id)
			return c.Last.Status == monitoring.CheckFailing && c.Last.Error != nil && strings.Contains(*c.Last.Error, "connection refused")
		})
	}
}
