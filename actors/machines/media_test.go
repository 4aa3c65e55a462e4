package machines

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// importISO brings an image named name into the driver's ISO storage, from a file
// (the sim) or a loopback URL (Proxmox's download-url).
func importISO(t *testing.T, ctx context.Context, d hypervisor.Driver, name string) {
	t.Helper()
	body := []byte("rescue system " + name)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
	t.Cleanup(srv.Close)
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	if _, err := d.ImportISO(ctx, hypervisor.ISOSpec{Name: name, URL: srv.URL, Checksum: "sha256:" + hex.EncodeToString(sum[:]), File: file}); err != nil {
		t.Fatal(err)
	}
}

// A machine's drive, boot order and rescue as tasks, on both drivers: a mount shows
// the image (id and name) in the record and the media index, an eject clears both;
// rescue on mounts the image, puts the CD-ROM first and leaves the machine running,
// refuses media changes and a second rescue meanwhile; rescue off ejects and brings
// the boot order back.
func TestMediaAndRescue(t *testing.T) {
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) { mediaAndRescue(t, d.new(t)) })
	}
}

func mediaAndRescue(t *testing.T, d hypervisor.Driver) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	importISO(t, ctx, d, "rescue.iso")
	s, m := tenantMachineOn(t, ctx, d, nil, nil)
	t1 := kit.Ptr("T1")
	iso := MountedISO{ISOID: "iso-1", Name: "Rescue", File: "rescue.iso"}
	get := func() Machine {
		t.Helper()
		got, err := s.Machines.Get(ctx, m.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	mounted := func(want bool) {
		t.Helper()
		if got, err := s.Machines.MountedISO(ctx, iso.ISOID); err != nil || got != want {
			t.Fatalf("MountedISO: %t, %v; want %t", got, err, want)
		}
	}

	task, err := s.Machines.MountISO(ctx, m.ID, t1, iso)
	if task.Type != "vm.media_mount" {
		t.Fatalf("got task type %q", task.Type)
	}
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	if got := get(); got.Media == nil || *got.Media != iso {
		t.Fatalf("after the mount: media %+v; want %+v", got.Media, iso)
	}
	mounted(true)
	task, err = s.Machines.SetBootOrder(ctx, m.ID, t1, BootOrderRequest{Order: []string{"cdrom", "disk"}})
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	if got := get(); !slices.Equal(got.BootOrder, []string{"cdrom", "disk"}) {
		t.Fatalf("boot order: %v", got.BootOrder)
	}
	task, err = s.Machines.EjectISO(ctx, m.ID, t1)
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	if got := get(); got.Media != nil {
		t.Fatalf("after the eject: media %+v", got.Media)
	}
	mounted(false)
	task, err = s.Machines.SetBootOrder(ctx, m.ID, t1, BootOrderRequest{Order: []string{"disk"}})
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	if _, err := s.Machines.SetBootOrder(ctx, m.ID, t1, BootOrderRequest{Order: []string{"disk", "disk"}}); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("a repeated device: %v; want invalid_request", err)
	}
	if _, err := s.Machines.Rescue(ctx, m.ID, t1, true, nil); !errors.Is(err, apierr.ErrInvalidState) {
		t.Fatalf("rescue without an image: %v; want invalid_state", err)
	}

	task, err = s.Machines.Rescue(ctx, m.ID, t1, true, &iso)
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	got := get()
	if !got.Rescue || got.Media == nil || got.Media.ISOID != iso.ISOID || got.BootOrder[0] != "cdrom" || got.Status != StatusRunning || len(got.Disks) == 0 {
		t.Fatalf("rescue on: %+v", got)
	}
	mounted(true)
	if _, err := s.Machines.EjectISO(ctx, m.ID, t1); !errors.Is(err, apierr.ErrInvalidState) {
		t.Fatalf("an eject in rescue: %v; want invalid_state", err)
	}
	if _, err := s.Machines.Rescue(ctx, m.ID, t1, true, &iso); !errors.Is(err, apierr.ErrInvalidState) {
		t.Fatalf("rescue on twice: %v; want invalid_state", err)
	}
	task, err = s.Machines.Rescue(ctx, m.ID, t1, false, nil)
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	got = get()
	if got.Rescue || got.Media != nil || !slices.Equal(got.BootOrder, []string{"disk"}) || got.Status != StatusRunning {
		t.Fatalf("rescue off: %+v", got)
	}
	mounted(false)
}
