package isos

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
)

// addUpload adds an image whose content is uploaded, checking that it awaits it.
func (l *library) addUpload(t *testing.T, in NewISO) ISOAdded {
	t.Helper()
	in.Upload = true
	a, err := l.Add(context.Background(), in)
	if err != nil {
		t.Fatalf("Add(%+v): %v", in, err)
	}
	if a.ISO.Status != StatusAwaitingUpload || a.Task.Status != tasks.TaskQueued || a.Task.Type != "iso.upload" {
		t.Fatalf("Add(upload): got %+v, task %+v; want awaiting_upload, iso.upload queued", a.ISO, a.Task)
	}
	return a
}

func sha512Of(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512:" + hex.EncodeToString(sum[:])
}

// countingReader counts what was read of a body.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// An uploaded image is verified and bounded as a fetched one: a good content makes it
// ready and mountable (and a second upload is 409); a mismatch fails it with the reason
// and keeps no file; a size over MaxBytes is refused before a byte is read; a body
// that ends early keeps nothing and leaves it awaiting its content; another tenant's
// image is not found; a url with upload, or neither, is refused.
func TestUploadIsVerifiedAndBounded(t *testing.T) {
	ctx := context.Background()
	l := newLibrary(t, openStore(t), filepath.Join(t.TempDir(), "isos"), 3<<20)
	content := bytes.Repeat([]byte("rescue "), 400_000) // 2.8 MB, under the 3 MiB cap

	a := l.addUpload(t, NewISO{Name: "uploaded", Checksum: sha512Of(content)})
	short := &countingReader{r: bytes.NewReader(content[:1000])}
	if _, err := l.Upload(ctx, a.ISO.ID, nil, short, int64(len(content))); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("Upload of a body that ends early: %v; want invalid_request", err)
	}
	if r, _ := l.Get(ctx, a.ISO.ID, nil); r.Status != StatusAwaitingUpload || len(l.files(t)) != 0 {
		t.Fatalf("after a short body: %+v, files %v; want awaiting_upload and no file", r, l.files(t))
	}
	r, err := l.Upload(ctx, a.ISO.ID, nil, bytes.NewReader(content), int64(len(content)))
	if err != nil || r.Status != StatusReady || r.SizeBytes != int64(len(content)) {
		t.Fatalf("Upload: got %+v, %v; want ready, %d bytes", r, err, len(content))
	}
	if task, _ := l.ms.Tasks.Get(ctx, a.Task.ID, nil); task.Status != tasks.TaskSucceeded {
		t.Fatalf("the upload's task: %+v; want succeeded", task)
	}
	if got := l.files(t); len(got) != 1 || got[0] != r.File {
		t.Fatalf("files after the upload: %v; want [%s]", got, r.File)
	}
	if m, err := l.Mountable(ctx, a.ISO.ID, nil, false); err != nil || m.File != r.File {
		t.Fatalf("Mountable(uploaded): %+v, %v", m, err)
	}
	if _, err := l.Upload(ctx, a.ISO.ID, nil, bytes.NewReader(content), int64(len(content))); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("a second Upload: %v; want conflict", err)
	}

	bad := l.addUpload(t, NewISO{Name: "bad", Checksum: sha512Of([]byte("another file"))})
	if _, err := l.Upload(ctx, bad.ISO.ID, nil, bytes.NewReader(content), int64(len(content))); !errors.Is(err, apierr.ErrChecksumMismatch) {
		t.Fatalf("Upload with a wrong checksum: %v; want checksum_mismatch", err)
	}
	rb, _ := l.Get(ctx, bad.ISO.ID, nil)
	task, _ := l.ms.Tasks.Get(ctx, bad.Task.ID, nil)
	if rb.Status != StatusFailed || rb.Error == nil || !strings.Contains(*rb.Error, "nothing was kept") || task.Status != tasks.TaskFailed {
		t.Fatalf("after a mismatch: %+v, task %+v; want both failed with the reason", rb, task)
	}
	if got := l.files(t); len(got) != 1 {
		t.Fatalf("files after a mismatch: %v; want the good one alone", got)
	}

	big := l.addUpload(t, NewISO{Name: "big", Checksum: sha512Of(content)})
	body := &countingReader{r: bytes.NewReader(content)}
	if _, err := l.Upload(ctx, big.ISO.ID, nil, body, 3<<20+1); !errors.Is(err, apierr.ErrPayloadTooLarge) || body.n != 0 {
		t.Fatalf("Upload over MaxBytes: %v after reading %d bytes; want payload_too_large, nothing read", err, body.n)
	}

	tenant, other := "tenant-a", "tenant-b"
	mine := l.addUpload(t, NewISO{Name: "a's", Checksum: sha512Of(content), TenantID: &tenant})
	if _, err := l.Upload(ctx, mine.ISO.ID, &other, bytes.NewReader(content), int64(len(content))); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("Upload of another tenant's image: %v; want not found", err)
	}
	if err := l.Delete(ctx, mine.ISO.ID, nil); err != nil {
		t.Fatalf("Delete of an image awaiting its content: %v", err)
	}
	if task, _ := l.ms.Tasks.Get(ctx, mine.Task.ID, nil); task.Status != tasks.TaskFailed {
		t.Fatalf("the task of an image deleted before its upload: %+v; want failed", task)
	}
	for _, in := range []NewISO{{Name: "x", URL: "https://example.com/x.iso", Upload: true, Checksum: sha512Of(content)},
		{Name: "x", Checksum: sha512Of(content)}} {
		if _, err := l.Add(ctx, in); !errors.Is(err, apierr.ErrInvalidRequest) {
			t.Errorf("Add(%+v): %v; want invalid_request", in, err)
		}
	}
}

// An image awaiting its content stays so across a restart (the upload may come
// later), and the partial file of an upload cut off by the stop is removed.
func TestStartKeepsWhatAwaitsItsUpload(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	dir := t.TempDir()
	first := newLibrary(t, store, dir, 0)
	a := first.addUpload(t, NewISO{Name: "later", Checksum: sha512Of([]byte("x"))})
	first.Stop()
	if err := writeFile(filepath.Join(dir, a.ISO.File+".part")); err != nil {
		t.Fatal(err)
	}
	second := newLibrary(t, store, dir, 0)
	if err := second.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if r, _ := second.Get(ctx, a.ISO.ID, nil); r.Status != StatusAwaitingUpload {
		t.Fatalf("after a restart: %+v; want awaiting_upload", r)
	}
	if got := second.files(t); len(got) != 0 {
		t.Fatalf("files after a restart: %v; want the partial file gone", got)
	}
	if r, err := second.Upload(ctx, a.ISO.ID, nil, strings.NewReader("x"), 1); err != nil || r.Status != StatusReady {
		t.Fatalf("Upload after a restart: %+v, %v; want ready", r, err)
	}
}

func writeFile(path string) error { return os.WriteFile(path, []byte("partial"), 0o600) }

// The periodic Settle (one member of a cluster runs it every minute) leaves an
// upload in flight alone: it once removed the partial file of every image awaiting
// its content, so a long upload's file vanished under it and the upload failed.
func TestSettleLeavesAnUploadInFlight(t *testing.T) {
	ctx := context.Background()
	l := newLibrary(t, openStore(t), t.TempDir(), 0)
	content := bytes.Repeat([]byte("iso "), 4096)
	a := l.addUpload(t, NewISO{Name: "slow", Checksum: sha512Of(content)})
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := l.Upload(ctx, a.ISO.ID, nil, pr, int64(len(content)))
		done <- err
	}()
	half := len(content) / 2
	if _, err := pw.Write(content[:half]); err != nil { // returns once the upload read it
		t.Fatal(err)
	}
	if err := l.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pw.Write(content[half:]); err != nil {
		t.Fatal(err)
	}
	_ = pw.Close()
	if err := <-done; err != nil {
		t.Fatalf("Upload with a Settle in its middle: %v", err)
	}
	if r, _ := l.Get(ctx, a.ISO.ID, nil); r.Status != StatusReady {
		t.Fatalf("after the upload: %+v; want ready", r)
	}
}
