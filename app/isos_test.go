package app

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
)

// isoServer serves an image over loopback HTTP and returns its URL and its checksum.
func isoServer(t *testing.T, body string) (url, checksum string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
	t.Cleanup(srv.Close)
	sum := sha256.Sum256([]byte(body))
	return srv.URL + "/image.iso", "sha256:" + hex.EncodeToString(sum[:])
}

// addISO adds an image as the operator and waits for its fetch to end.
func (s *testServer) addISO(admin string, body map[string]any) (isos.ISO, tasks.Task) {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/resources/isos", token: admin, body: body})
	expect(s.t, r, 202, "")
	var a isos.ISOAdded
	r.decode(s.t, &a)
	if a.ISO.Status != isos.StatusPending || a.Task.TargetID != a.ISO.ID {
		s.t.Fatalf("add: %+v", a)
	}
	task := s.waitTask(admin, a.Task.ID)
	r = s.do(req{method: "GET", path: "/api/resources/isos/" + a.ISO.ID, token: admin})
	expect(s.t, r, 200, "")
	var iso isos.ISO
	r.decode(s.t, &iso)
	return iso, task
}

// The ISO library on sim through HTTP: an image whose checksum does not match fails
// its fetch and is never mounted; a good one is fetched, listed to every tenant when
// public and to its own tenant alone otherwise, mounted, shown in the machine, kept
// from a delete while mounted, ejected and deleted. The boot order is set and checked.
func TestISOLibraryAndMedia(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Mounter", nil)
	b := s.tenant(admin, "Other", nil)
	url, sum := isoServer(t, strings.Repeat("a bootable image ", 4096))

	bad, task := s.addISO(admin, map[string]any{"name": "Tampered", "url": url, "checksum": "sha256:" + strings.Repeat("ab", 32)})
	if task.Status != tasks.TaskFailed || bad.Status != isos.StatusFailed || bad.Error == nil || !strings.Contains(*bad.Error, "checksum_mismatch") {
		t.Fatalf("a checksum that does not match: task %+v, record %+v", task, bad)
	}
	good, task := s.addISO(admin, map[string]any{"name": "Debian netinst", "url": url, "checksum": sum})
	if task.Status != tasks.TaskSucceeded || good.Status != isos.StatusReady || good.SizeBytes != 4096*17 {
		t.Fatalf("a good image: task %+v, record %+v", task, good)
	}
	private, _ := s.addISO(admin, map[string]any{"name": "Other's tools", "url": url, "checksum": sum, "tenant_id": b.ID})
	expect(t, s.do(req{method: "POST", path: "/api/resources/isos", token: a.Token, body: map[string]any{"name": "mine", "url": url, "checksum": sum}}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/resources/isos", token: admin, body: map[string]any{"name": "x", "url": "ftp://x/y.iso", "checksum": "md5:00"}}), 400, "invalid_request")

	var page struct{ Items []isos.ISO }
	r := s.do(req{method: "GET", path: "/api/resources/isos", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &page)
	var names []string
	for _, i := range page.Items {
		names = append(names, i.Name)
	}
	if !slices.Equal(names, []string{"Tampered", "Debian netinst"}) {
		t.Fatalf("the tenant's list: %v; want the public images only", names)
	}
	expect(t, s.do(req{method: "GET", path: "/api/resources/isos/" + private.ID, token: a.Token}), 404, "not_found")
	expect(t, s.do(req{method: "GET", path: "/api/resources/isos/" + private.ID, token: b.Token}), 200, "")

	m := s.provision(a.Token, smallMachine)
	vm := "/api/client/machines/" + m.ID
	run := func(r req) tasks.Task {
		t.Helper()
		r.token = a.Token
		done := s.waitTask(a.Token, s.startTask(r).ID)
		if done.Status != tasks.TaskSucceeded {
			t.Fatalf("%s %s: %+v", r.method, r.path, done)
		}
		return done
	}
	detail := func() clientDetail {
		t.Helper()
		var d clientDetail
		r := s.do(req{method: "GET", path: vm, token: a.Token})
		expect(t, r, 200, "")
		r.decode(t, &d)
		return d
	}
	if d := detail(); d.Media != nil || !slices.Equal(d.BootOrder, []string{"disk"}) || d.Rescue {
		t.Fatalf("a new machine: media %+v, boot order %v, rescue %t", d.Media, d.BootOrder, d.Rescue)
	}
	expect(t, s.do(req{method: "POST", path: vm + "/media", token: a.Token, body: map[string]any{"iso_id": bad.ID}}), 409, "invalid_state")
	expect(t, s.do(req{method: "POST", path: vm + "/media", token: a.Token, body: map[string]any{"iso_id": private.ID}}), 404, "not_found")
	if d := detail(); d.Media != nil {
		t.Fatalf("after refused mounts: media %+v", d.Media)
	}
	run(req{method: "POST", path: vm + "/media", body: map[string]any{"iso_id": good.ID}})
	run(req{method: "PUT", path: vm + "/boot-order", body: map[string]any{"order": []string{"cdrom", "disk", "net"}}})
	if d := detail(); d.Media == nil || d.Media.ISOID != good.ID || d.Media.Name != "Debian netinst" || !slices.Equal(d.BootOrder, []string{"cdrom", "disk", "net"}) {
		t.Fatalf("after mount and boot order: media %+v, boot order %v", d.Media, d.BootOrder)
	}
	expect(t, s.do(req{method: "PUT", path: vm + "/boot-order", token: a.Token, body: map[string]any{"order": []string{"disk", "disk"}}}), 400, "invalid_request")
	expect(t, s.do(req{method: "PUT", path: vm + "/boot-order", token: a.Token, body: map[string]any{"order": []string{"floppy"}}}), 400, "invalid_request")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/isos/" + good.ID, token: admin}), 409, "conflict")
	run(req{method: "DELETE", path: vm + "/media"})
	if d := detail(); d.Media != nil || !slices.Equal(d.BootOrder, []string{"cdrom", "disk", "net"}) {
		t.Fatalf("after eject: media %+v, boot order %v", d.Media, d.BootOrder)
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/isos/" + good.ID, token: a.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/isos/" + good.ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "POST", path: vm + "/media", token: a.Token, body: map[string]any{"iso_id": good.ID}}), 404, "not_found")
	// No rescue image is set up on this server.
	expect(t, s.do(req{method: "POST", path: vm + "/rescue", token: a.Token, body: map[string]any{"enabled": true}}), 409, "invalid_state")
}

// Rescue on sim through HTTP: it boots the operator's image with the CD-ROM first and
// the machine running, shows rescue: true and refuses media changes meanwhile; off
// ejects it and brings the boot order back. Operators do the same on /api/virt.
func TestRescueBootsTheOperatorsImage(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.RescueISO = "SystemRescue" })
	a := s.tenant(admin, "Rescued", nil)
	url, sum := isoServer(t, "rescue system")
	m := s.provision(a.Token, smallMachine)
	vm := "/api/client/machines/" + m.ID
	expect(t, s.do(req{method: "POST", path: vm + "/rescue", token: a.Token, body: map[string]any{"enabled": true}}), 409, "invalid_state")
	rescue, _ := s.addISO(admin, map[string]any{"name": "SystemRescue", "url": url, "checksum": sum})
	run := func(tok string, r req) {
		t.Helper()
		r.token = tok
		if done := s.waitTask(tok, s.startTask(r).ID); done.Status != tasks.TaskSucceeded {
			t.Fatalf("%s %s: %+v", r.method, r.path, done)
		}
	}
	detail := func() clientDetail {
		t.Helper()
		var d clientDetail
		r := s.do(req{method: "GET", path: vm, token: a.Token})
		expect(t, r, 200, "")
		r.decode(t, &d)
		return d
	}
	run(a.Token, req{method: "PUT", path: vm + "/boot-order", body: map[string]any{"order": []string{"disk", "net"}}})
	run(a.Token, req{method: "POST", path: vm + "/actions/stop"})
	run(a.Token, req{method: "POST", path: vm + "/rescue", body: map[string]any{"enabled": true}})
	d := detail()
	if !d.Rescue || d.Media == nil || d.Media.ISOID != rescue.ID || !slices.Equal(d.BootOrder, []string{"cdrom", "disk", "net"}) || d.Status != machines.StatusRunning || len(d.Disks) == 0 {
		t.Fatalf("rescue on: rescue %t media %+v boot %v status %s disks %v", d.Rescue, d.Media, d.BootOrder, d.Status, d.Disks)
	}
	expect(t, s.do(req{method: "POST", path: vm + "/rescue", token: a.Token, body: map[string]any{"enabled": true}}), 409, "invalid_state")
	expect(t, s.do(req{method: "DELETE", path: vm + "/media", token: a.Token}), 409, "invalid_state")
	expect(t, s.do(req{method: "PUT", path: vm + "/boot-order", token: a.Token, body: map[string]any{"order": []string{"disk"}}}), 409, "invalid_state")
	run(a.Token, req{method: "POST", path: vm + "/rescue", body: map[string]any{"enabled": false}})
	d = detail()
	if d.Rescue || d.Media != nil || !slices.Equal(d.BootOrder, []string{"disk", "net"}) || d.Status != machines.StatusRunning {
		t.Fatalf("rescue off: rescue %t media %+v boot %v status %s", d.Rescue, d.Media, d.BootOrder, d.Status)
	}
	expect(t, s.do(req{method: "POST", path: vm + "/rescue", token: a.Token, body: map[string]any{"enabled": false}}), 409, "invalid_state")
	// The operator's routes share the handlers.
	run(admin, req{method: "POST", path: "/api/virt/vms/" + m.ID + "/rescue", body: map[string]any{"enabled": true}})
	run(admin, req{method: "POST", path: "/api/virt/vms/" + m.ID + "/rescue", body: map[string]any{"enabled": false}})
	run(admin, req{method: "POST", path: "/api/virt/vms/" + m.ID + "/media", body: map[string]any{"iso_id": rescue.ID}})
	run(admin, req{method: "DELETE", path: "/api/virt/vms/" + m.ID + "/media"})
}
