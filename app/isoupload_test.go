package app

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/internal/testwait"
)

// addUpload adds an image awaiting its content as the operator.
func (s *testServer) addUpload(admin, name, checksum string, tenant *string) isos.ISOAdded {
	s.t.Helper()
	body := map[string]any{"name": name, "upload": true, "checksum": checksum}
	if tenant != nil {
		body["tenant_id"] = *tenant
	}
	r := s.do(req{method: "POST", path: "/api/resources/isos", token: admin, body: body})
	expect(s.t, r, 202, "")
	var a isos.ISOAdded
	r.decode(s.t, &a)
	if a.ISO.Status != isos.StatusAwaitingUpload || a.Task.Status != tasks.TaskQueued {
		s.t.Fatalf("add with upload: %+v", a)
	}
	return a
}

// An ISO image uploaded through HTTP on sim, larger than the edge's 1 MiB body limit:
// streamed, verified and stored, ready at the answer and mounted; a second upload is
// 409; a content that does not match is 422 and keeps nothing; a Content-Length over
// the server's cap is refused before the body is sent; a body without a length is
// 400; a tenant may not upload (403) nor see another tenant's image (404); a body
// sent as JSON is 415.
func TestISOUploadOverHTTP(t *testing.T) {
	t.Parallel()
	const maxBytes = 3 << 20
	s, admin := synced(t, func(c *Config) { c.ISOMaxBytes = maxBytes })
	a := s.tenant(admin, "Uploader", nil)
	b := s.tenant(admin, "Other", nil)
	content := bytes.Repeat([]byte("a bootable image "), 150_000) // 2.55 MB
	sum := sha512.Sum512(content)
	checksum := "sha512:" + hex.EncodeToString(sum[:])
	dir := filepath.Join(s.cfg.DataDir, "isos")
	put := func(id string, body []byte, tok string) *response {
		return s.do(req{method: "PUT", path: "/api/resources/isos/" + id + "/content", token: tok, body: octets(body)})
	}

	good := s.addUpload(admin, "Uploaded installer", checksum, nil)
	expect(t, put(good.ISO.ID, content, a.Token), 403, "forbidden")
	expect(t, s.do(req{method: "PUT", path: "/api/resources/isos/" + good.ISO.ID + "/content", token: admin, body: map[string]any{"a": 1}}), 415, "unsupported_media_type")
	r := put(good.ISO.ID, content, admin)
	expect(t, r, 200, "")
	var ready isos.ISO
	r.decode(t, &ready)
	if ready.Status != isos.StatusReady || ready.SizeBytes != int64(len(content)) {
		t.Fatalf("the upload's answer: %+v; want ready, %d bytes", ready, len(content))
	}
	if task := s.waitTask(admin, good.Task.ID); task.Status != tasks.TaskSucceeded {
		t.Fatalf("the upload's task: %+v; want succeeded", task)
	}
	expect(t, put(good.ISO.ID, content, admin), 409, "conflict")
	m := s.provision(a.Token, smallMachine)
	done := s.waitTask(a.Token, s.startTask(req{method: "POST", path: "/api/client/machines/" + m.ID + "/media", token: a.Token,
		body: map[string]any{"iso_id": good.ISO.ID}}).ID)
	if done.Status != tasks.TaskSucceeded {
		t.Fatalf("mount of the uploaded image: %+v", done)
	}

	bad := s.addUpload(admin, "Tampered", "sha512:"+strings.Repeat("ab", 64), nil)
	expect(t, put(bad.ISO.ID, content, admin), 422, "checksum_mismatch")
	r = s.do(req{method: "GET", path: "/api/resources/isos/" + bad.ISO.ID, token: admin})
	var failed isos.ISO
	r.decode(t, &failed)
	if failed.Status != isos.StatusFailed || failed.Error == nil {
		t.Fatalf("after a mismatch: %+v; want failed with the reason", failed)
	}
	if _, err := os.Stat(filepath.Join(dir, failed.File)); !os.IsNotExist(err) {
		t.Fatalf("the file of a mismatched upload: %v; want none", err)
	}
	if _, err := os.Stat(filepath.Join(dir, failed.File+".part")); !os.IsNotExist(err) {
		t.Fatalf("the partial file of a mismatched upload: %v; want none", err)
	}
	// The audit log holds the success once, and the mismatch once as a refusal with its
	// code (not also as a success).
	for id, want := range map[string]string{good.ISO.ID: "forbidden unsupported_media_type ok conflict", bad.ISO.ID: "checksum_mismatch"} {
		testwait.Eventually(t, "the upload's audit entry", func() bool {
			var page struct {
				Items []struct{ Action, Result string }
			}
			s.do(req{method: "GET", path: "/api/audit?target=" + id, token: admin}).decode(t, &page)
			var got []string
			for _, e := range page.Items {
				if e.Action == "PUT /api/resources/isos/{id}/content" {
					got = append(got, e.Result)
				}
			}
			slices.Sort(got)
			w := strings.Fields(want)
			slices.Sort(w)
			return slices.Equal(got, w)
		})
	}

	// Over the cap: the 413 comes while the body is still being sent (it never ends).
	big := s.addUpload(admin, "Too big", checksum, nil)
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write(content[:64<<10]) }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hr, _ := http.NewRequestWithContext(ctx, "PUT", s.base+"/api/resources/isos/"+big.ISO.ID+"/content", pr)
	hr.ContentLength = maxBytes + 1
	hr.Header.Set("Content-Type", "application/octet-stream")
	hr.Header.Set("Authorization", "Bearer "+admin)
	res, err := s.client.Do(hr)
	if err != nil {
		t.Fatalf("an upload over the cap: %v; want a 413 before the body's end", err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	expect(t, &response{Status: res.StatusCode, Header: res.Header, Body: raw}, 413, "payload_too_large")

	// Chunked: no length.
	hr, _ = http.NewRequest("PUT", s.base+"/api/resources/isos/"+big.ISO.ID+"/content", io.NopCloser(bytes.NewReader(content[:100])))
	hr.Header.Set("Content-Type", "application/octet-stream")
	hr.Header.Set("Authorization", "Bearer "+admin)
	res, err = s.client.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = io.ReadAll(res.Body)
	res.Body.Close()
	expect(t, &response{Status: res.StatusCode, Header: res.Header, Body: raw}, 400, "invalid_request")
	if r := s.do(req{method: "GET", path: "/api/resources/isos/" + big.ISO.ID, token: admin}); !strings.Contains(string(r.Body), isos.StatusAwaitingUpload) {
		t.Fatalf("after refused uploads: %s; want it still awaiting its content", r.Body)
	}

	private := s.addUpload(admin, "Other's", checksum, &b.ID)
	expect(t, s.do(req{method: "GET", path: "/api/resources/isos/" + private.ISO.ID, token: a.Token}), 404, "not_found")
	expect(t, put(private.ISO.ID, content, a.Token), 403, "forbidden")
	expect(t, put(private.ISO.ID, content[:10], admin), 422, "checksum_mismatch")
}

// An ISO image uploaded through HTTP on Proxmox (the fake): vmplane streams it to the
// ISO storage with its checksum, keeps no copy of its own, and the image mounts; a
// content that does not match is refused by vmplane before Proxmox sees it.
func TestISOUploadOnProxmox(t *testing.T) {
	t.Parallel()
	s, f, admin := proxmoxServer(t)
	s.sync(admin)
	content := bytes.Repeat([]byte("a bootable image "), 80_000) // 1.36 MB
	sum := sha512.Sum512(content)
	put := func(id string) *response {
		return s.do(req{method: "PUT", path: "/api/resources/isos/" + id + "/content", token: admin, body: octets(content)})
	}
	uploads := func() int {
		n := 0
		for _, node := range []string{"pve1", "pve2", "pve3"} {
			n += f.Count("POST", "/nodes/"+node+"/storage/local/upload")
		}
		return n
	}

	bad := s.addUpload(admin, "Tampered", "sha512:"+strings.Repeat("ab", 64), nil)
	expect(t, put(bad.ISO.ID), 422, "checksum_mismatch")
	if n := uploads(); n != 0 {
		t.Fatalf("Proxmox saw %d uploads of a content that does not match; want none", n)
	}
	good := s.addUpload(admin, "Uploaded installer", "sha512:"+hex.EncodeToString(sum[:]), nil)
	r := put(good.ISO.ID)
	expect(t, r, 200, "")
	var ready isos.ISO
	r.decode(t, &ready)
	if ready.Status != isos.StatusReady || ready.SizeBytes != int64(len(content)) || uploads() == 0 {
		t.Fatalf("the upload: %+v after %d uploads to Proxmox; want ready, %d bytes", ready, uploads(), len(content))
	}
	if _, err := os.Stat(filepath.Join(s.cfg.DataDir, "isos", ready.File)); !os.IsNotExist(err) {
		t.Fatalf("vmplane's copy of an image Proxmox holds: %v; want none", err)
	}
	web := s.machine(admin, "100")
	s.run(req{method: "POST", path: "/api/virt/vms/" + web.ID + "/media", token: admin, body: map[string]any{"iso_id": ready.ID}})
	if _, _, cfg, _ := f.VM(100); !strings.Contains(fmt.Sprint(cfg), "local:iso/"+ready.File) {
		t.Fatalf("machine 100's config on Proxmox: %v; want the uploaded image in its drive", cfg)
	}
}
