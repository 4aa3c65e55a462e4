package cli_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/client"
)

// The ISO library and a machine's media from the command line, as an operator: an
// image added (one whose checksum does not match fails its task), listed and shown;
// mounted in a tenant's machine and ejected; a boot order; rescue on and off; the
// image deleted.
func TestISOAndMediaVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	body := []byte("an installer")
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { _, _ = rw.Write(body) }))
	defer srv.Close()
	sum := sha256.Sum256(body)
	checksum := "sha256:" + hex.EncodeToString(sum[:])

	w.fails(1, "checksum_mismatch", "iso", "add", "tampered", srv.URL, "sha256:"+strings.Repeat("0", 64), "--wait")
	var task client.Task
	w.okJSON(&task, "iso", "add", apptest.RescueISO, srv.URL, checksum, "--wait")
	if task.Status != "succeeded" || task.Type != "iso.fetch" {
		t.Fatalf("add: %+v", task)
	}
	var isos []client.ISO
	w.okJSON(&isos, "iso", "list")
	if len(isos) != 2 || isos[1].Name != apptest.RescueISO || isos[1].Status != "ready" || isos[0].Status != "failed" {
		t.Fatalf("list: %+v", isos)
	}
	if out := w.ok("iso", "show", isos[1].ID); !strings.Contains(out, checksum) || !strings.Contains(out, "ready") {
		t.Fatalf("show: %q", out)
	}

	var ten struct{ ID string }
	w.okJSON(&ten, "tenant", "create", "Booter")
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "booted", "--template", "tpl-debian-12", "--wait")
	w.okJSON(&task, "machine", "media", "mount", m.ID, isos[1].ID, "--wait")
	if out := w.ok("machine", "show", m.ID); !strings.Contains(out, apptest.RescueISO) {
		t.Fatalf("show after mount: %q", out)
	}
	w.fails(1, "conflict", "iso", "delete", isos[1].ID)
	w.okJSON(&task, "machine", "media", "eject", m.ID, "--wait")
	w.okJSON(&task, "machine", "boot-order", m.ID, "disk", "net", "--wait")
	w.fails(2, "DEVICE", "machine", "boot-order", m.ID)
	w.okJSON(&task, "machine", "rescue", "on", m.ID, "--wait")
	if out := w.ok("machine", "show", m.ID); !strings.Contains(out, "cdrom,disk,net") || !strings.Contains(out, "Rescue") {
		t.Fatalf("show in rescue: %q", out)
	}
	w.okJSON(&task, "machine", "rescue", "off", m.ID, "--wait")
	w.ok("iso", "delete", isos[1].ID)
}

// An image uploaded from a file (over the edge's 1 MiB body limit): the checksum is
// computed by the command, the image is ready at once and mounts; without --name the
// command refuses.
func TestISOUploadVerb(t *testing.T) {
	w := newWorld(t)
	w.login()
	file := filepath.Join(t.TempDir(), "installer.iso")
	if err := os.WriteFile(file, bytes.Repeat([]byte("installer "), 150_000), 0o600); err != nil {
		t.Fatal(err)
	}
	w.fails(2, "--name", "iso", "upload", file)
	var iso client.ISO
	w.okJSON(&iso, "iso", "upload", file, "--name", "uploaded")
	if iso.Status != "ready" || iso.SizeBytes != 1_500_000 || iso.URL != "" {
		t.Fatalf("upload: %+v; want ready, 1500000 bytes, no URL", iso)
	}
	var ten struct{ ID string }
	w.okJSON(&ten, "tenant", "create", "Uploader")
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "booted", "--template", "tpl-debian-12", "--wait")
	var task client.Task
	w.okJSON(&task, "machine", "media", "mount", m.ID, iso.ID, "--wait")
	if out := w.ok("machine", "show", m.ID); !strings.Contains(out, "uploaded") {
		t.Fatalf("show after mount: %q", out)
	}
}
