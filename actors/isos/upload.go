package isos

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Upload receives the content of an image added with upload: true, size bytes read
// from body as they come: written to <Dir>/<file>.part and hashed on the way, never
// held whole in memory. A size over MaxBytes is refused (413) before anything is
// read. A body that ends early, or a hypervisor that cannot take the image now,
// leaves the image awaiting its content, with nothing kept, so the upload can be sent
// again. A content that does not match the image's checksum keeps nothing either, and
// fails the image with the reason (422 checksum_mismatch): it was added with the wrong
// checksum or file, and is added again. Otherwise the file is synced and renamed, the
// driver imports it (the sim keeps vmplane's file; Proxmox receives it, and vmplane's
// copy is removed), and the image is ready, its task succeeded, in one durable write
// before Upload returns. Another tenant's image is not found; one that is not
// awaiting its content, or whose upload runs already, is 409.
func (s *ISOs) Upload(ctx context.Context, id string, scope *string, body io.Reader, size int64) (ISO, error) {
	r, err := s.Get(ctx, id, scope)
	if err != nil {
		return ISO{}, err
	}
	if r.Status != StatusAwaitingUpload {
		return ISO{}, apierr.New(apierr.ErrConflict, "ISO %s is %s: only an image added with upload takes its content, once", id, r.Status)
	}
	switch {
	case size < 0:
		return ISO{}, apierr.New(apierr.ErrInvalidRequest, "the upload needs a Content-Length")
	case size == 0:
		return ISO{}, apierr.New(apierr.ErrInvalidRequest, "the body is empty")
	case size > s.d.MaxBytes:
		return ISO{}, apierr.New(apierr.ErrPayloadTooLarge, "the image is %d bytes; at most %d are taken (VMPLANE_ISO_MAX_BYTES)", size, s.d.MaxBytes)
	}
	if _, busy := s.uploading.LoadOrStore(id, true); busy {
		return ISO{}, apierr.New(apierr.ErrOperationInProgress, "ISO %s is being uploaded already", id)
	}
	defer s.uploading.Delete(id)
	// The system's stop ends the upload too (the record still awaits its content).
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()

	path, err := s.receive(ctx, r, body, size)
	if errors.Is(err, apierr.ErrChecksumMismatch) {
		return s.uploaded(ctx, id, 0, err)
	}
	if err != nil {
		return ISO{}, err
	}
	spec := hypervisor.ISOSpec{Name: r.File, Checksum: r.Checksum, File: path}
	iso, err := s.d.Driver.ImportISO(ctx, spec)
	if _, local := s.d.Driver.(hypervisor.ISOFromFile); err != nil || !local {
		_ = os.Remove(path) // the hypervisor holds the image now, or nobody does
	}
	if errors.Is(err, hypervisor.ErrChecksumMismatch) {
		return s.uploaded(ctx, id, 0, apierr.New(apierr.ErrChecksumMismatch, "%s", err.Error()))
	}
	if err != nil {
		return ISO{}, err
	}
	if iso.SizeBytes == 0 {
		iso.SizeBytes = size
	}
	return s.uploaded(ctx, id, iso.SizeBytes, nil)
}

// receive copies size bytes of body into <Dir>/<file>.part, hashing them, and checks
// the digest: a match is synced and renamed to <Dir>/<file> (its path returned); a
// short body or a mismatch (apierr.ErrChecksumMismatch) removes the partial file.
func (s *ISOs) receive(ctx context.Context, r ISO, body io.Reader, size int64) (string, error) {
	algo, want, err := hypervisor.ParseChecksum(r.Checksum)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(s.d.Dir, 0o750); err != nil {
		return "", err
	}
	path := filepath.Join(s.d.Dir, r.File)
	part := path + ".part"
	f, err := os.OpenFile(part, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return "", err
	}
	h := hypervisor.NewChecksumHash(algo)
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(ctxReader{ctx, body}, size))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch got := hex.EncodeToString(h.Sum(nil)); {
	case err != nil && ctx.Err() != nil:
		err = apierr.New(apierr.ErrUnavailable, "the upload was cut off: vmplane is stopping, or it took too long")
	case err != nil:
		err = apierr.New(apierr.ErrInvalidRequest, "the body could not be read after %d of %d bytes: %v", n, size, err)
	case n < size:
		err = apierr.New(apierr.ErrInvalidRequest, "the body ended after %d of the %d bytes announced", n, size)
	case got != want:
		err = apierr.New(apierr.ErrChecksumMismatch, "the %s of the content uploaded is %s, not %s as the image was added with; nothing was kept", algo, got, want)
	}
	if err == nil {
		err = os.Rename(part, path)
	}
	if err == nil {
		err = syncDir(s.d.Dir)
	}
	if err != nil {
		_ = os.Remove(part)
		return "", err
	}
	return path, nil
}

// ctxReader stops reading once ctx ends (a read in progress ends with the body's own
// deadline).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// uploaded records an upload's end in one durable write: the image ready (size
// bytes) and its task succeeded, with the request's audit entry, or, for ferr (a
// checksum mismatch), both failed with the reason, which Upload then returns (the
// edge records the refusal).
func (s *ISOs) uploaded(ctx context.Context, id string, size int64, ferr error) (ISO, error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), kit.DefaultTimeout)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := persistence.Load[ISO](wctx, s.store, isoKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return ISO{}, apierr.NotFound("iso", id)
	}
	if err != nil {
		return ISO{}, err
	}
	if r.Status != StatusAwaitingUpload {
		return ISO{}, apierr.New(apierr.ErrConflict, "ISO %s became %s during its upload", id, r.Status)
	}
	now := time.Now().UTC()
	r.Status, r.SizeBytes, r.UpdatedAt = StatusReady, size, now
	if ferr != nil {
		r.Status, r.Error = StatusFailed, kit.Ptr(apierr.From(ferr).Detail)
	}
	b := new(persistence.Batch)
	if err := put(b, r); err != nil {
		return ISO{}, err
	}
	var ended *tasks.Task
	if task, err := s.d.Tasks.Get(wctx, r.TaskID, nil); err == nil && !task.Finished() {
		ended = &task
		task.Status, task.StartedAt, task.FinishedAt = tasks.TaskSucceeded, kit.Ptr(now), &now
		if ferr != nil {
			task.Status, task.Error = tasks.TaskFailed, r.Error
		}
		task.Result, _ = json.Marshal(map[string]any{"iso_id": r.ID, "status": r.Status})
		if err := tasks.Put(b, &task); err != nil {
			return ISO{}, err
		}
	}
	if ferr == nil {
		// A refusal's entry is the edge's, with the error it answers.
		if err := s.d.Runtime.Audit(b, kit.AuditOf(ctx).On("", id, kit.Deref(r.TenantID))); err != nil {
			return ISO{}, err
		}
	}
	if err := s.d.Runtime.Commit(b); err != nil {
		return ISO{}, fmt.Errorf("recording the upload of ISO %s: %w", id, err)
	}
	if ended != nil {
		s.published(ended)
	}
	if ferr != nil {
		return ISO{}, ferr
	}
	return *r, nil
}
