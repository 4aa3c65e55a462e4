// Package isos keeps the ISO library: images an operator adds by URL and checksum, or
// uploads (upload.go), public or for one tenant, which machines mount (machines' media
// operations) and boot as their rescue system. Adding one is a task: the image is fetched and verified
// against its checksum, by vmplane itself for a driver that fetches nothing (the sim,
// hypervisor.ISOFromFile: streamed to a file under the data directory, bounded in
// size) or by the hypervisor (Proxmox's download-url, which verifies the checksum
// itself). A record is pending while its fetch runs, then ready or failed with the
// reason; only a ready image is mounted. It sits above machines, which write the tasks
// and know which machines hold an image.
package isos

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Statuses of an ISO record.
const (
	StatusPending = "pending"
	StatusReady   = "ready"
	StatusFailed  = "failed"
	// StatusAwaitingUpload is an image added with upload: true until its content
	// arrives (Upload).
	StatusAwaitingUpload = "awaiting_upload"
)

// Bounds of an ISO's fields.
const (
	MaxNameLen     = 128
	MaxURLLen      = 2048
	MaxChecksumLen = len("sha512:") + 128
	// DefaultMaxBytes bounds an image vmplane fetches itself (8 GiB).
	DefaultMaxBytes = 8 << 30
	// fetchTimeout bounds one fetch, vmplane's or the hypervisor's.
	fetchTimeout = 2 * time.Hour
)

// ISO is one image of the library.
type ISO struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// URL is where the image is fetched from; empty for an uploaded one.
	URL      string `json:"url"`
	Checksum string `json:"checksum"`
	// TenantID is the tenant the image is for; null for a public one, which every
	// tenant sees.
	TenantID *string `json:"tenant_id"`
	Status   string  `json:"status" doc:"pending while it is fetched (awaiting_upload, for an image added with upload, until its content is uploaded), then ready or failed"`
	// Error is why the fetch failed (a checksum that does not match, the URL's
	// answer); null otherwise.
	Error     *string `json:"error"`
	SizeBytes int64   `json:"size_bytes" doc:"0 when the hypervisor fetched it and did not say"`
	// File is the image's file name on the hypervisor.
	File      string    `json:"file"`
	TaskID    string    `json:"task_id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// NewISO adds an image to the library: fetched from its URL, or, with Upload, sent
// afterwards with PUT /api/resources/isos/{id}/content.
type NewISO struct {
	Name string `json:"name" openapi:"required,limit=iso.name"`
	URL  string `json:"url,omitempty" openapi:"limit=iso.url" doc:"http or https; required unless upload is true"`
	// Upload has the image's content sent by the caller (Upload) instead of fetched.
	Upload   bool    `json:"upload,omitempty" doc:"true: no url; the record awaits its content (awaiting_upload), sent with PUT /api/resources/isos/{id}/content"`
	Checksum string  `json:"checksum" openapi:"required,limit=iso.checksum" doc:"sha256:<hex> or sha512:<hex>"`
	TenantID *string `json:"tenant_id,omitempty" openapi:"nullable,limit=id" doc:"the one tenant that sees it; absent or null: public"`
}

// ISOAdded is the answer of an add: the record, pending, and the task of its fetch
// (for an upload: awaiting_upload, and the task, queued, that its upload ends).
type ISOAdded struct {
	ISO  ISO        `json:"iso"`
	Task tasks.Task `json:"task"`
}

const recordVersion = 1

func isoKey(id string) []byte { return persistence.Key("iso", id) }

// Deps are what the library needs from outside its package.
type Deps struct {
	Runtime *kit.Runtime
	Driver  hypervisor.Driver
	// Machines say which machines hold an image; Tasks read a fetch's task; Events
	// (nil: none) is told a fetch's task as it starts and ends, as a machine's tasks are.
	Machines *machines.Machines
	Tasks    *tasks.Tasks
	Events   *events.Events
	// TenantExists checks the tenant an image is for.
	TenantExists func(ctx context.Context, id string) error
	// Dir is where vmplane keeps the images it fetches itself; MaxBytes bounds each
	// (0: DefaultMaxBytes).
	Dir      string
	MaxBytes int64
	// Client fetches the images (nil: one without the environment's proxy).
	Client *http.Client
}

// ISOs is the library.
type ISOs struct {
	d     Deps
	store persistence.Store
	log   *zap.Logger
	// mu orders the writes of one process: a fetch's end against a delete.
	mu sync.Mutex
	wg sync.WaitGroup
	// stop ends the fetches in flight when the system stops.
	ctx  context.Context
	stop context.CancelFunc
	// uploading holds the ids of the images whose content is being received by this
	// process (a second upload of one is 409, as is its delete).
	uploading sync.Map
	// settler fails, on one member at a time, the fetches of members that died.
	settler *kit.Loop
}

// settleEvery is how often one member looks for fetches whose member died.
const settleEvery = time.Minute

// New returns the library and settles, on a store of its own (one process), the
// fetches an earlier process left pending: they failed with it.
func New(d Deps) *ISOs {
	if d.MaxBytes <= 0 {
		d.MaxBytes = DefaultMaxBytes
	}
	if d.Client == nil {
		d.Client = &http.Client{Transport: &http.Transport{Proxy: nil}}
	}
	s := &ISOs{d: d, store: d.Runtime.Store, log: d.Runtime.Log.Named("isos")}
	s.ctx, s.stop = context.WithCancel(context.Background())
	// An upload cut off by the last stop left its partial file: the image still awaits
	// its content, which a new upload sends whole. Only here, before any upload can
	// run: the periodic Settle would remove the file of an upload in flight.
	if parts, err := filepath.Glob(filepath.Join(d.Dir, "*.part")); err == nil && d.Dir != "" {
		for _, p := range parts {
			_ = os.Remove(p)
		}
	}
	s.settler = d.Runtime.EveryOnOne("iso fetches of members gone", settleEvery, false, func(ctx context.Context, _ time.Time) {
		if err := s.Settle(ctx); err != nil {
			s.log.Warn("cannot settle the fetches of members gone", zap.Error(err))
		}
	})
	return s
}

// Stop cancels the fetches in flight (their records stay pending; the next start
// fails them) and waits for them.
func (s *ISOs) Stop() {
	s.settler.Stop()
	s.stop()
	s.wg.Wait()
}

// Settle fails the pending fetches whose process is gone (iso-fetch names it): an
// earlier run of a single node, a cluster member whose lease expired. It runs at
// every start and, on one member of a cluster, every settleEvery, so the surviving
// members fail a dead member's fetches. A pending record that names no process (added
// before the names were kept) is failed on a store of its own, and left on a shared
// one, where another member may be fetching it.
func (s *ISOs) Settle(ctx context.Context) error {
	var pending []ISO
	err := s.store.Scan(ctx, persistence.Prefix("iso"), nil, 0, func(_, v []byte) error {
		var r ISO
		if _, err := persistence.Decode(v, &r); err == nil && r.Status == StatusPending {
			pending = append(pending, r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range pending {
		owner, err := s.store.Get(ctx, fetchKey(r.ID))
		var gone bool
		switch {
		case errors.Is(err, persistence.ErrNotFound):
			gone = !s.store.Shared()
		case err != nil:
			return err
		default:
			if gone, err = s.d.Runtime.OwnerGone(ctx, string(owner)); err != nil {
				return err
			}
		}
		if gone {
			s.finish(ctx, r.ID, 0, errors.New("vmplane stopped while the image was fetched; add it again"))
		}
	}
	return nil
}

// validate checks an add's fields.
func validate(in NewISO) error {
	var f []apierr.FieldError
	if n := utf8.RuneCountInString(in.Name); n < 1 || n > MaxNameLen {
		f = append(f, apierr.Field("name", "must be 1..%d characters", MaxNameLen))
	}
	switch u, err := url.Parse(in.URL); {
	case in.Upload && in.URL != "":
		f = append(f, apierr.Field("url", "must be left out when upload is true: the content is uploaded"))
	case in.Upload:
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(in.URL) > MaxURLLen:
		f = append(f, apierr.Field("url", "must be an http:// or https:// URL of at most %d bytes (or set upload to true)", MaxURLLen))
	}
	if _, _, err := hypervisor.ParseChecksum(in.Checksum); err != nil {
		var e *apierr.Error
		if errors.As(err, &e) {
			f = append(f, e.Fields...)
		}
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}

// Add records the image, pending, and starts the task (iso.fetch) that fetches and
// verifies it; with Upload, it records the image awaiting its content and the task
// (iso.upload, queued) that Upload ends. A request made with an Idempotency-Key (ctx carries its stamp) records
// its answer in the same write.
func (s *ISOs) Add(ctx context.Context, in NewISO) (ISOAdded, error) {
	st := kit.StampOf(ctx)
	if a, ok, err := kit.Recorded[ISOAdded](st); ok {
		return a, err
	}
	if err := validate(in); err != nil {
		return ISOAdded{}, err
	}
	if in.TenantID != nil && *in.TenantID == "" {
		in.TenantID = nil
	}
	if in.TenantID != nil && s.d.TenantExists != nil {
		if err := s.d.TenantExists(ctx, *in.TenantID); errors.Is(err, apierr.ErrNotFound) {
			return ISOAdded{}, apierr.Invalid(apierr.Field("tenant_id", "no tenant %s", *in.TenantID))
		} else if err != nil {
			return ISOAdded{}, err
		}
	}
	algo, digest, _ := hypervisor.ParseChecksum(in.Checksum)
	now := time.Now().UTC()
	id := persistence.NewID()
	rec := ISO{ID: id, Name: in.Name, URL: in.URL, Checksum: algo + ":" + digest, TenantID: in.TenantID, Status: StatusPending,
		File: id + ".iso", CreatedAt: now, UpdatedAt: now}
	task := tasks.Task{ID: persistence.NewID(), Type: "iso.fetch", TargetType: "iso", TargetID: id, TenantID: in.TenantID,
		Status: tasks.TaskRunning, CreatedAt: now, StartedAt: kit.Ptr(now)}
	if in.Upload {
		rec.Status, task.Type, task.Status, task.StartedAt = StatusAwaitingUpload, "iso.upload", tasks.TaskQueued, nil
	}
	rec.TaskID = task.ID
	out := ISOAdded{ISO: rec, Task: task}
	b := new(persistence.Batch)
	if err := put(b, &rec); err != nil {
		return ISOAdded{}, err
	}
	b.Put(fetchKey(id), []byte(s.d.Runtime.Owner()))
	if err := tasks.Put(b, &task); err != nil {
		return ISOAdded{}, err
	}
	if st != nil {
		if err := st.Carry(b, out); err != nil {
			return ISOAdded{}, err
		}
	}
	if err := s.d.Runtime.Audit(b, kit.AuditOf(ctx).On("", id, kit.Deref(in.TenantID))); err != nil {
		return ISOAdded{}, err
	}
	if err := s.d.Runtime.Commit(b); err != nil {
		return ISOAdded{}, err
	}
	s.published(&task)
	if in.Upload {
		return out, nil
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fctx, cancel := context.WithTimeout(s.ctx, fetchTimeout)
		defer cancel()
		size, err := s.fetch(fctx, rec)
		if s.ctx.Err() != nil {
			return // stopping: the next start settles it
		}
		wctx, wcancel := context.WithTimeout(context.Background(), kit.DefaultTimeout)
		defer wcancel()
		s.finish(wctx, rec.ID, size, err)
	}()
	return out, nil
}

func put(b *persistence.Batch, r *ISO) error {
	val, err := persistence.Encode(recordVersion, r)
	if err != nil {
		return err
	}
	b.Put(isoKey(r.ID), val)
	return nil
}

// fetch brings the image to the hypervisor: through vmplane's own file for a driver
// that takes one, else by the hypervisor's own fetch.
func (s *ISOs) fetch(ctx context.Context, r ISO) (int64, error) {
	spec := hypervisor.ISOSpec{Name: r.File, URL: r.URL, Checksum: r.Checksum}
	if _, local := s.d.Driver.(hypervisor.ISOFromFile); local {
		path, err := s.download(ctx, r)
		if err != nil {
			return 0, err
		}
		spec.File = path
	}
	iso, err := s.d.Driver.ImportISO(ctx, spec)
	if err != nil && spec.File != "" {
		_ = os.Remove(spec.File)
	}
	return iso.SizeBytes, err
}

// download streams the image to Dir/<file>, hashing it on the way and stopping past
// MaxBytes; a checksum that does not match leaves no file.
func (s *ISOs) download(ctx context.Context, r ISO) (string, error) {
	algo, want, err := hypervisor.ParseChecksum(r.Checksum)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(s.d.Dir, 0o750); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return "", err
	}
	resp, err := s.d.Client.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetching %s: %w", r.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("fetching %s: the server answered %s", r.URL, resp.Status)
	}
	path := filepath.Join(s.d.Dir, r.File)
	part := path + ".part"
	f, err := os.OpenFile(part, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return "", err
	}
	h := hypervisor.NewChecksumHash(algo)
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, s.d.MaxBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch got := hex.EncodeToString(h.Sum(nil)); {
	case err != nil:
		err = fmt.Errorf("fetching %s: %w", r.URL, err)
	case n > s.d.MaxBytes:
		err = fmt.Errorf("the image is larger than the %d bytes allowed (VMPLANE_ISO_MAX_BYTES)", s.d.MaxBytes)
	case got != want:
		err = hypervisor.NewError(hypervisor.ErrChecksumMismatch, "the %s of the image fetched is %s, not %s", algo, got, want)
	}
	if err == nil {
		err = os.Rename(part, path)
	}
	if err != nil {
		_ = os.Remove(part)
		return "", err
	}
	return path, nil
}

// finish records a fetch's end: the record ready or failed, and its task.
func (s *ISOs) finish(ctx context.Context, id string, size int64, ferr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := persistence.Load[ISO](ctx, s.store, isoKey(id))
	if err != nil {
		s.log.Warn("ISO record gone before its fetch ended", zap.String("iso_id", id), zap.Error(err))
		return
	}
	now := time.Now().UTC()
	r.Status, r.SizeBytes, r.UpdatedAt = StatusReady, size, now
	if ferr != nil {
		r.Status, r.Error = StatusFailed, kit.Ptr(ferr.Error())
	}
	b := new(persistence.Batch).Del(fetchKey(id))
	if err := put(b, r); err != nil {
		return
	}
	var ended *tasks.Task
	if task, err := s.d.Tasks.Get(ctx, r.TaskID, nil); err == nil && !task.Finished() {
		ended = &task
		task.Status, task.FinishedAt = tasks.TaskSucceeded, &now
		if ferr != nil {
			task.Status, task.Error = tasks.TaskFailed, r.Error
		}
		task.Result, _ = json.Marshal(map[string]any{"iso_id": r.ID, "status": r.Status})
		if err := tasks.Put(b, &task); err != nil {
			return
		}
	}
	if err := s.d.Runtime.Commit(b); err != nil {
		s.log.Error("cannot record the end of an ISO fetch", zap.String("iso_id", id), zap.Error(err))
		return
	}
	if ended != nil {
		s.published(ended)
	}
}

// published tells the event bus of a fetch's task, durable now.
func (s *ISOs) published(t *tasks.Task) {
	if s.d.Events != nil {
		s.d.Events.Publish(events.EventTask, t.TenantID, t)
	}
}

// visible reports whether a caller of scope sees the image: operators (nil) every
// one, a tenant the public ones and its own.
func visible(r *ISO, scope *string) bool {
	return scope == nil || r.TenantID == nil || *r.TenantID == *scope
}

// Get returns one image; one the scope does not see is not found.
func (s *ISOs) Get(ctx context.Context, id string, scope *string) (ISO, error) {
	r, err := persistence.Load[ISO](ctx, s.store, isoKey(id))
	if errors.Is(err, persistence.ErrNotFound) || err == nil && !visible(r, scope) {
		return ISO{}, apierr.NotFound("iso", id)
	}
	if err != nil {
		return ISO{}, err
	}
	return *r, nil
}

// List returns a page of the images the scope sees, in creation order.
func (s *ISOs) List(ctx context.Context, scope *string, cursor string, limit int) ([]ISO, string, error) {
	return kit.ScanPage(ctx, s.store, persistence.Prefix("iso"), cursor, limit, func(r *ISO) (ISO, bool) { return *r, visible(r, scope) })
}

// Find returns the image named by id or, failing that, by name, as the scope sees it
// (the rescue image is set up by either).
func (s *ISOs) Find(ctx context.Context, idOrName string, scope *string) (ISO, error) {
	r, err := s.Get(ctx, idOrName, scope)
	if !errors.Is(err, apierr.ErrNotFound) {
		return r, err
	}
	var found *ISO
	err = s.store.Scan(ctx, persistence.Prefix("iso"), nil, 0, func(_, v []byte) error {
		var c ISO
		if _, err := persistence.Decode(v, &c); err == nil && c.Name == idOrName && visible(&c, scope) && found == nil {
			found = &c
		}
		return nil
	})
	if err != nil {
		return ISO{}, err
	}
	if found == nil {
		return ISO{}, apierr.NotFound("iso", idOrName)
	}
	return *found, nil
}

// Mountable returns what a machine's drive takes of an image the scope sees, by id
// (or, with orName, by name too): a ready one; another tenant's is not found, a
// pending or failed one 409.
func (s *ISOs) Mountable(ctx context.Context, id string, scope *string, orName bool) (machines.MountedISO, error) {
	find := s.Get
	if orName {
		find = s.Find
	}
	r, err := find(ctx, id, scope)
	if err != nil {
		return machines.MountedISO{}, err
	}
	if r.Status != StatusReady {
		return machines.MountedISO{}, apierr.New(apierr.ErrInvalidState, "ISO %s is %s, not ready", r.ID, r.Status)
	}
	return machines.MountedISO{ISOID: r.ID, Name: r.Name, File: r.File}, nil
}

// Delete removes an image from the hypervisor, vmplane's file of it and its record.
// One still being fetched, or in a machine's drive, is 409.
func (s *ISOs) Delete(ctx context.Context, id string, scope *string) error {
	r, err := s.Get(ctx, id, scope)
	if err != nil {
		return err
	}
	if r.Status == StatusPending {
		return apierr.New(apierr.ErrConflict, "ISO %s is being fetched; delete it once it is ready or failed", id)
	}
	if _, busy := s.uploading.Load(id); busy {
		return apierr.New(apierr.ErrConflict, "ISO %s is being uploaded; delete it once the upload ends", id)
	}
	mounted, err := s.d.Machines.MountedISO(ctx, id)
	if err != nil {
		return err
	}
	if mounted {
		return apierr.New(apierr.ErrConflict, "ISO %s is mounted in a machine's drive; eject it first", id)
	}
	if r.Status == StatusReady {
		if err := s.d.Driver.DeleteISO(ctx, r.File); err != nil {
			return err
		}
	}
	_ = os.Remove(filepath.Join(s.d.Dir, r.File))
	b := new(persistence.Batch).Del(isoKey(id))
	var ended *tasks.Task
	if r.Status == StatusAwaitingUpload {
		// Its queued task ends with it: no content will come.
		if task, err := s.d.Tasks.Get(ctx, r.TaskID, nil); err == nil && !task.Finished() {
			now := time.Now().UTC()
			task.Status, task.FinishedAt, task.Error = tasks.TaskFailed, &now, kit.Ptr("the image was deleted before its content was uploaded")
			if err := tasks.Put(b, &task); err != nil {
				return err
			}
			ended = &task
		}
	}
	if err := s.d.Runtime.Audit(b, kit.AuditOf(ctx).On("", id, kit.Deref(r.TenantID))); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.d.Runtime.Commit(b); err != nil {
		return err
	}
	if ended != nil {
		s.published(ended)
	}
	return nil
}
