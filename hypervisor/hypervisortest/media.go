package hypervisortest

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// isoSource serves an image over loopback HTTP (for a driver that fetches, Proxmox)
// and holds it in a file (for one that takes the file vmplane fetched, the sim).
type isoSource struct {
	url, file string
	size      int64
	sha256    string
	sha512    string
}

func newISOSource(t *testing.T, body []byte) isoSource {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
	t.Cleanup(srv.Close)
	file := filepath.Join(t.TempDir(), "image.iso")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	s256, s512 := sha256.Sum256(body), sha512.Sum512(body)
	return isoSource{url: srv.URL + "/image.iso", file: file, size: int64(len(body)), sha256: hex.EncodeToString(s256[:]), sha512: hex.EncodeToString(s512[:])}
}

func (src isoSource) spec(name, checksum string) hypervisor.ISOSpec {
	return hypervisor.ISOSpec{Name: name, URL: src.url, Checksum: checksum, File: src.file}
}

// media: an image whose checksum does not match is refused and cannot be mounted;
// one that matches (sha256 or sha512) is mounted, shown in the machine, ejected and
// deleted; the boot order is set, shown and checked.
func (c *suite) media(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped)
	ref := hypervisor.Ref{VMID: m.VMID, Node: m.Node}
	src := newISOSource(t, []byte(strings.Repeat("rescue system ", 1000)))

	_, err := c.d.ImportISO(bg, src.spec("bad.iso", "sha256:"+strings.Repeat("0", 64)))
	WantErr(t, "ImportISO with a wrong checksum", err, hypervisor.ErrChecksumMismatch, apierr.ErrInvalidRequest)
	_, err = c.d.MountISO(bg, ref, "bad.iso")
	WantErr(t, "MountISO of the refused image", err, hypervisor.ErrISONotFound, apierr.ErrNotFound)
	_, err = c.d.ImportISO(bg, src.spec("x.iso", "md5:abc"))
	WantErr(t, "ImportISO with an unknown checksum", err, apierr.ErrInvalidRequest)

	iso, err := c.d.ImportISO(bg, src.spec("rescue.iso", "sha256:"+src.sha256))
	if err != nil {
		t.Fatalf("ImportISO: %v", err)
	}
	if iso.Name != "rescue.iso" || iso.Checksum != "sha256:"+src.sha256 {
		t.Errorf("ImportISO: got %+v; want rescue.iso with its checksum", iso)
	}
	if _, err := c.d.ImportISO(bg, src.spec("other.iso", "sha512:"+src.sha512)); err != nil {
		t.Fatalf("ImportISO (sha512): %v", err)
	}

	// An image uploaded to vmplane comes as its file alone, with no URL: every driver
	// takes it (Proxmox's by an upload), checked against its checksum.
	fileOnly := func(name, checksum string) hypervisor.ISOSpec {
		spec := src.spec(name, checksum)
		spec.URL = ""
		return spec
	}
	_, err = c.d.ImportISO(bg, fileOnly("upbad.iso", "sha512:"+strings.Repeat("0", 128)))
	WantErr(t, "ImportISO of a file with a wrong checksum", err, hypervisor.ErrChecksumMismatch, apierr.ErrInvalidRequest)
	_, err = c.d.MountISO(bg, ref, "upbad.iso")
	WantErr(t, "MountISO of the refused file", err, hypervisor.ErrISONotFound, apierr.ErrNotFound)
	if up, err := c.d.ImportISO(bg, fileOnly("uploaded.iso", "sha256:"+src.sha256)); err != nil || up.SizeBytes != src.size {
		t.Fatalf("ImportISO of a file: got %+v, %v; want %d bytes", up, err, src.size)
	}
	if hm, err := c.d.MountISO(bg, ref, "uploaded.iso"); err != nil || hm.Media != "uploaded.iso" {
		t.Fatalf("MountISO of the uploaded file: got media %q, %v; want uploaded.iso", hm.Media, err)
	}

	hm, err := c.d.MountISO(bg, ref, "rescue.iso")
	if err != nil || hm.Media != "rescue.iso" {
		t.Fatalf("MountISO: got media %q, %v; want rescue.iso", hm.Media, err)
	}
	order := []string{hypervisor.BootCDROM, hypervisor.BootDisk}
	if len(m.Interfaces) > 0 {
		order = append(order, hypervisor.BootNet)
	}
	if hm, err = c.d.SetBootOrder(bg, ref, order); err != nil || !slices.Equal(hm.BootOrder, order) {
		t.Fatalf("SetBootOrder(%v): got %v, %v", order, hm.BootOrder, err)
	}
	if hm, err = c.d.Machine(bg, ref); err != nil || hm.Media != "rescue.iso" || !slices.Equal(hm.BootOrder, order) {
		t.Fatalf("Machine after mount: got media %q boot %v, %v; want rescue.iso %v", hm.Media, hm.BootOrder, err, order)
	}
	for _, bad := range [][]string{nil, {"disk", "disk"}, {"floppy"}} {
		_, err = c.d.SetBootOrder(bg, ref, bad)
		WantErr(t, "SetBootOrder "+strings.Join(bad, ","), err, apierr.ErrInvalidRequest)
	}
	if hm, err = c.d.MountISO(bg, ref, "other.iso"); err != nil || hm.Media != "other.iso" {
		t.Fatalf("MountISO over a mounted image: got %q, %v", hm.Media, err)
	}
	if hm, err = c.d.EjectISO(bg, ref); err != nil || hm.Media != "" {
		t.Fatalf("EjectISO: got media %q, %v; want none", hm.Media, err)
	}
	if hm, err = c.d.Machine(bg, ref); err != nil || hm.Media != "" || !slices.Equal(hm.BootOrder, order) {
		t.Fatalf("Machine after eject: got media %q boot %v, %v; want none, %v", hm.Media, hm.BootOrder, err, order)
	}
	if hm, err = c.d.SetBootOrder(bg, ref, []string{hypervisor.BootDisk}); err != nil || !slices.Equal(hm.BootOrder, []string{hypervisor.BootDisk}) {
		t.Fatalf("SetBootOrder(disk): got %v, %v", hm.BootOrder, err)
	}

	if err := c.d.DeleteISO(bg, "rescue.iso"); err != nil {
		t.Fatalf("DeleteISO: %v", err)
	}
	if err := c.d.DeleteISO(bg, "rescue.iso"); err != nil {
		t.Errorf("DeleteISO of an image gone: %v; want nil", err)
	}
	_, err = c.d.MountISO(bg, ref, "rescue.iso")
	WantErr(t, "MountISO of a deleted image", err, hypervisor.ErrISONotFound)

	missing := hypervisor.Ref{VMID: 4040, Node: m.Node}
	_, err = c.d.MountISO(bg, missing, "other.iso")
	WantErr(t, "MountISO of a missing machine", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.EjectISO(bg, missing)
	WantErr(t, "EjectISO of a missing machine", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.SetBootOrder(bg, missing, order)
	WantErr(t, "SetBootOrder of a missing machine", err, hypervisor.ErrMachineNotFound)
}
