package locations

import (
	"context"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Default is the id of the default location, the configured driver.
const Default = hvloc.Default

// Drivers a location may name.
const (
	DriverProxmox = "proxmox"
	DriverSim     = "sim"
)

// Bounds of a location's fields.
const (
	MinNameLen, MaxNameLen = 1, 64
	// MaxTextLen bounds the URL, token id, secret, file and fingerprint settings.
	MaxTextLen = 1024
)

// Location is a hypervisor cluster vmplane runs machines in, as the API shows it: the
// token's secret is never shown, only whether one is stored.
type Location struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Driver string `json:"driver"`
	// Default says this is the configured driver, which the API neither changes nor
	// deletes.
	Default bool `json:"default"`
	// Proxmox holds the settings of a proxmox location; nil for another driver (and
	// for the default location, whose settings are the server's).
	Proxmox   *Proxmox  `json:"proxmox,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Proxmox are a proxmox location's settings as shown.
type Proxmox struct {
	URL     string `json:"url"`
	TokenID string `json:"token_id"`
	// TokenSecretFile is the file the token secret is read from, when the location
	// names one instead of storing it.
	TokenSecretFile string `json:"token_secret_file,omitempty"`
	// TokenSecretStored says the secret is stored, sealed (never shown).
	TokenSecretStored bool   `json:"token_secret_stored"`
	TLSFingerprint    string `json:"tls_fingerprint,omitempty"`
}

// ProxmoxSpec are a proxmox location's settings as given: the secret itself
// (token_secret, stored sealed with the key of --location-secret-key-file) or the file
// holding it (token_secret_file, read when the driver is built).
type ProxmoxSpec struct {
	URL             string `json:"url" openapi:"required,limit=location.text" doc:"the cluster's API, https://host:8006"`
	TokenID         string `json:"token_id" openapi:"required,limit=location.text" doc:"user@realm!name"`
	TokenSecret     string `json:"token_secret,omitempty" openapi:"limit=location.text" doc:"the API token's secret: stored sealed with the key of VMPLANE_LOCATION_SECRET_KEY_FILE, never shown"`
	TokenSecretFile string `json:"token_secret_file,omitempty" openapi:"limit=location.text" doc:"a file on the server holding the token's secret, instead of token_secret"`
	TLSFingerprint  string `json:"tls_fingerprint,omitempty" openapi:"limit=location.text" doc:"the SHA-256 fingerprint of the cluster's certificate, for a self-signed one"`
}

// LocationSpec is a location to create, the body of POST /api/resources/locations.
type LocationSpec struct {
	Name    string       `json:"name" openapi:"required,limit=location.name"`
	Driver  string       `json:"driver" openapi:"required,enum=proxmox|sim" doc:"proxmox, or sim for another simulated cluster"`
	Proxmox *ProxmoxSpec `json:"proxmox,omitempty" doc:"the settings of a proxmox location"`
}

// LocationChange is a change of a location, the body of PATCH
// /api/resources/locations/{id}: a new name, or new proxmox settings in whole (the
// secret given again, or its file).
type LocationChange struct {
	Name    *string      `json:"name,omitempty" openapi:"limit=location.name"`
	Proxmox *ProxmoxSpec `json:"proxmox,omitempty" doc:"the settings in whole, the secret included"`
}

// record is a location as stored: what the API shows and the sealed secret.
type record struct {
	Location
	SealedSecret string `json:"sealed_secret,omitempty"`
}

const locationVersion = 1

func locationKey(id string) []byte { return persistence.Key("location", id) }

// nameKey is the index key of a location name: location-name/<folded name>.
func nameKey(name string) []byte { return persistence.Key("location-name", kit.FoldName(name)) }

// Settings are what a location's driver is built from: the location and its token's
// secret, opened or read from its file.
type Settings struct {
	Location    Location
	TokenSecret string
	// Check is set when the driver is built only to find the settings it refuses,
	// before the location's record is written: the builder makes nothing durable for
	// it (a simulated location's world is written only for a stored location).
	Check bool
}

// Deps are what the locations need from outside their package.
type Deps struct {
	Runtime *kit.Runtime
	// Dispatcher holds the drivers; the service adds, replaces and removes the
	// locations' drivers in it as their records change.
	Dispatcher *hvloc.Dispatcher
	// Build makes a location's driver from its settings (the composition root knows
	// the drivers); an error is a setting the driver refuses.
	Build func(Settings) (hypervisor.Driver, error)
	// Key seals the token secrets (ReadKey); nil: a secret cannot be stored, only
	// read from a file.
	Key []byte
	// DefaultDriver is the name of the configured driver, shown on the default
	// location.
	DefaultDriver string
	// InUse, optional, says why a location may not be deleted ("3 machine(s)"), or ""
	// when nothing belongs to it.
	InUse func(ctx context.Context, id string) (string, error)
	// Deleted, optional, is told of a location once its delete is durable, so that
	// what other rooms keep of it ends with it (its hypervisor_unavailable alert).
	Deleted func(id string)
	// Forget, optional, removes what lives outside the records for a location (a
	// simulated location's world) once its delete is durable and its driver is out
	// of the dispatcher. It runs after, never before: a restart in between then finds
	// no record naming what is left, which nothing reads and the composition root
	// sweeps at its next start. Its error is logged; the delete stands.
	Forget func(ctx context.Context, id string) error
	// Unavailable, optional, names the locations (by id, Default among them) whose
	// cluster the hypervisor watch finds not answering now, for Offered.
	Unavailable func(ctx context.Context) (map[string]bool, error)
}

// Locations is the service of the location records. A location is written seldom,
// so it has no entity: each write is one conditional batch, as plans'.
type Locations struct {
	d     Deps
	store persistence.Store
	log   *zap.Logger

	// built is the stored value each location's driver in the dispatcher was built
	// from, so a write that changes nothing of a location rebuilds nothing.
	mu    sync.Mutex
	built map[string]string
	kick  chan struct{}
	stop  chan struct{}
	done  chan struct{}
}

// Start returns the locations' service with the dispatcher holding every stored
// location's driver, kept in step with the records (this member's writes and, through
// the store's watch, every other member's) until Stop.
func Start(ctx context.Context, d Deps) (*Locations, error) {
	l := &Locations{d: d, store: d.Runtime.Store, log: d.Runtime.Log.Named("locations"), built: map[string]string{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if err := l.reconcile(ctx); err != nil {
		return nil, err
	}
	l.store.Watch(persistence.Prefix("location"), func([]byte) {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	})
	go l.follow()
	return l, nil
}

// Stop ends the following of the records.
func (l *Locations) Stop() {
	close(l.stop)
	<-l.done
}

// follow reconciles the dispatcher with the records after each change the watch names.
func (l *Locations) follow() {
	defer close(l.done)
	for {
		select {
		case <-l.stop:
			return
		case <-l.kick:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if err := l.reconcile(ctx); err != nil {
				l.log.Warn("could not read the locations", zap.Error(err))
			}
			cancel()
		}
	}
}

// reconcile makes the dispatcher hold a driver for every stored location, built from
// its record as it is now, and none for a location deleted. A location whose driver
// cannot be built is left out (its calls answer location_not_found) and logged.
func (l *Locations) reconcile(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[string]bool{}
	err := l.store.Scan(ctx, persistence.Prefix("location"), nil, 0, func(k, v []byte) error {
		var rec record
		if _, err := persistence.Decode(v, &rec); err != nil {
			return err
		}
		seen[rec.ID] = true
		if l.built[rec.ID] == string(v) {
			return nil
		}
		prev, _ := l.d.Dispatcher.Location(rec.ID)
		drv, err := l.driver(rec)
		if err != nil {
			l.log.Error("location left out: its driver cannot be built", zap.String("location", rec.ID), zap.String("name", rec.Name), zap.Error(err))
			l.d.Dispatcher.Remove(rec.ID)
			delete(l.built, rec.ID)
			closeDriver(prev)
			return nil
		}
		l.d.Dispatcher.Set(rec.ID, drv)
		l.built[rec.ID] = string(v)
		closeDriver(prev)
		return nil
	})
	if err != nil {
		return err
	}
	for id := range l.built {
		if !seen[id] {
			prev, _ := l.d.Dispatcher.Location(id)
			l.d.Dispatcher.Remove(id)
			delete(l.built, id)
			closeDriver(prev)
		}
	}
	return nil
}

// closeDriver releases what a driver no longer held holds (the proxmox driver's idle
// connections); a call still in flight on it ends as it would have.
func closeDriver(d hypervisor.Driver) {
	if c, ok := d.(io.Closer); ok {
		_ = c.Close()
	}
}

// driver builds a location's driver from its record, for the dispatcher.
func (l *Locations) driver(rec record) (hypervisor.Driver, error) { return l.buildDriver(rec, false) }

// buildDriver builds a location's driver from its record; check: only to check its
// settings (Settings.Check).
func (l *Locations) buildDriver(rec record, check bool) (hypervisor.Driver, error) {
	s := Settings{Location: rec.Location, Check: check}
	if p := rec.Proxmox; p != nil {
		switch {
		case rec.SealedSecret != "":
			secret, err := open(l.d.Key, rec.ID, rec.SealedSecret)
			if err != nil {
				return nil, err
			}
			s.TokenSecret = secret
		case p.TokenSecretFile != "":
			secret, err := readSecretFile(p.TokenSecretFile)
			if err != nil {
				return nil, err
			}
			s.TokenSecret = secret
		}
	}
	return l.d.Build(s)
}

// secretShape is what a Proxmox API token secret looks like (a UUID), leniently.
var secretShape = regexp.MustCompile(`^[A-Za-z0-9-]{8,128}$`)

// readSecretFile reads a token secret from the file a location names. Its content
// must look like a token secret: the API takes any path, and the secret is sent to
// the location's URL, which the operator chooses, so a file that holds anything else
// (a password file, a key) is refused without a word of what it holds.
func readSecretFile(path string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", errors.New("token_secret_file cannot be read")
	}
	secret := strings.TrimSpace(string(raw))
	if !secretShape.MatchString(secret) {
		return "", errors.New("token_secret_file does not hold an API token secret (a UUID)")
	}
	return secret, nil
}

// defaultLocation is the configured driver as a location.
func (l *Locations) defaultLocation() Location {
	return Location{ID: Default, Name: Default, Driver: l.d.DefaultDriver, Default: true}
}

// Get returns one location; Default is the configured driver.
func (l *Locations) Get(ctx context.Context, id string) (Location, error) {
	if id == Default {
		return l.defaultLocation(), nil
	}
	rec, _, err := l.load(ctx, id)
	return rec.Location, err
}

// Driver is the driver the dispatcher holds for a location (Default: the configured
// one), or hypervisor/locations.ErrLocationNotFound.
func (l *Locations) Driver(id string) (hypervisor.Driver, error) {
	return l.d.Dispatcher.Location(id)
}

// Exists answers whether a location of that id is there (Default always is), for the
// rooms that take a location's id in a body.
func (l *Locations) Exists(ctx context.Context, id string) error {
	_, err := l.Get(ctx, id)
	return err
}

// load returns a location's record and its stored value, which a write requires
// unchanged.
func (l *Locations) load(ctx context.Context, id string) (record, []byte, error) {
	if id == "" || len(id) > 64 || strings.Contains(id, "/") {
		return record{}, nil, apierr.NotFound("location", id)
	}
	raw, err := l.store.Get(ctx, locationKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return record{}, nil, apierr.NotFound("location", id)
	}
	if err != nil {
		return record{}, nil, err
	}
	var rec record
	if _, err := persistence.Decode(raw, &rec); err != nil {
		return record{}, nil, err
	}
	return rec, raw, nil
}

// firstCursor is the cursor after a first page that held the default location alone:
// it sorts before every record id (ULIDs start with a digit 0..7).
const firstCursor = "0"

// List returns the default location first, then the others in creation order.
func (l *Locations) List(ctx context.Context, cursor string, limit int) ([]Location, string, error) {
	keep := func(r *record) (Location, bool) { return r.Location, true }
	if cursor != "" {
		return kit.ScanPage(ctx, l.store, persistence.Prefix("location"), cursor, limit, keep)
	}
	first := []Location{l.defaultLocation()}
	if limit == 1 {
		more, _, err := kit.ScanPage(ctx, l.store, persistence.Prefix("location"), "", 1, keep)
		if err != nil || len(more) == 0 {
			return first, "", err
		}
		return first, firstCursor, nil
	}
	if limit > 1 {
		limit--
	}
	rest, next, err := kit.ScanPage(ctx, l.store, persistence.Prefix("location"), "", limit, keep)
	if err != nil {
		return nil, "", err
	}
	return append(first, rest...), next, nil
}

// Create records a new location once its driver builds from the settings given; its
// name must be free, ignoring case (409 otherwise).
func (l *Locations) Create(ctx context.Context, s LocationSpec) (Location, error) {
	now := time.Now().UTC()
	rec := record{Location: Location{ID: persistence.NewID(), Name: s.Name, Driver: s.Driver, CreatedAt: now, UpdatedAt: now}}
	if err := l.settle(&rec, s.Proxmox); err != nil {
		return Location{}, err
	}
	if err := l.save(ctx, &rec, nil, nil); err != nil {
		return Location{}, err
	}
	return rec.Location, nil
}

// Update renames a location or replaces its proxmox settings; the default location
// is the server's settings' (409).
func (l *Locations) Update(ctx context.Context, id string, c LocationChange) (Location, error) {
	if id == Default {
		return Location{}, apierr.New(apierr.ErrConflict, "the default location is the server's own driver: change its settings (VMPLANE_PROXMOX_URL, ...) instead")
	}
	prev, raw, err := l.load(ctx, id)
	if err != nil {
		return Location{}, err
	}
	next := prev
	if c.Name != nil {
		next.Name = *c.Name
	}
	spec := c.Proxmox
	if spec == nil && next.Proxmox != nil {
		// Settings unchanged: the secret stays as stored.
		p := *next.Proxmox
		spec = &ProxmoxSpec{URL: p.URL, TokenID: p.TokenID, TokenSecretFile: p.TokenSecretFile, TLSFingerprint: p.TLSFingerprint}
		if next.SealedSecret != "" {
			secret, err := open(l.d.Key, id, next.SealedSecret)
			if err != nil {
				return Location{}, apierr.New(apierr.ErrConflict, "location %s: %v; give proxmox settings again", id, err)
			}
			spec.TokenSecret = secret
		}
	}
	if err := l.settle(&next, spec); err != nil {
		return Location{}, err
	}
	next.UpdatedAt = time.Now().UTC()
	if err := l.save(ctx, &next, &prev, raw); err != nil {
		return Location{}, err
	}
	return next.Location, nil
}

// settle checks a location's name, driver and settings, seals the secret given, and
// builds the driver once to find the settings it refuses (a 400 naming them).
func (l *Locations) settle(rec *record, p *ProxmoxSpec) error {
	var f []apierr.FieldError
	if n := len(strings.TrimSpace(rec.Name)); n < MinNameLen || len(rec.Name) > MaxNameLen {
		f = append(f, apierr.Field("name", "must be %d..%d characters", MinNameLen, MaxNameLen))
	}
	if strings.EqualFold(strings.TrimSpace(rec.Name), Default) {
		f = append(f, apierr.Field("name", "%q is the default location's", Default))
	}
	rec.Proxmox, rec.SealedSecret = nil, ""
	secret := ""
	switch rec.Driver {
	case DriverSim:
		if p != nil {
			f = append(f, apierr.Field("proxmox", "a sim location takes no proxmox settings"))
		}
	case DriverProxmox:
		switch {
		case p == nil:
			f = append(f, apierr.Field("proxmox", "a proxmox location needs its settings"))
		case (p.TokenSecret == "") == (p.TokenSecretFile == ""):
			f = append(f, apierr.Field("proxmox.token_secret", "give the token's secret or token_secret_file, one of them"))
		case p.TokenSecret != "" && len(l.d.Key) == 0:
			f = append(f, apierr.Field("proxmox.token_secret", "cannot be stored: the server has no VMPLANE_LOCATION_SECRET_KEY_FILE; give token_secret_file instead"))
		default:
			rec.Proxmox = &Proxmox{URL: p.URL, TokenID: p.TokenID, TokenSecretFile: p.TokenSecretFile,
				TokenSecretStored: p.TokenSecret != "", TLSFingerprint: p.TLSFingerprint}
			secret = p.TokenSecret
		}
	default:
		f = append(f, apierr.Field("driver", "must be proxmox or sim"))
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	if secret != "" {
		sealed, err := seal(l.d.Key, rec.ID, secret)
		if err != nil {
			return err
		}
		rec.SealedSecret = sealed
	}
	drv, err := l.buildDriver(*rec, true)
	if err != nil {
		return apierr.Invalid(apierr.Field(rec.Driver, "%v", err))
	}
	closeDriver(drv) // built to be checked; reconcile builds the one the dispatcher holds
	return nil
}

// Delete deletes a location nothing belongs to; the default location is never
// deleted (409), nor one that plans, pools or machines belong to (409 saying what).
func (l *Locations) Delete(ctx context.Context, id string) error {
	if id == Default {
		return apierr.New(apierr.ErrConflict, "the default location is the server's own driver and is always there")
	}
	rec, raw, err := l.load(ctx, id)
	if err != nil {
		return err
	}
	if l.d.InUse != nil {
		why, err := l.d.InUse(ctx, id)
		if err != nil {
			return err
		}
		if why != "" {
			return apierr.New(apierr.ErrConflict, "location %s holds %s; move or delete them first", id, why)
		}
	}
	b := new(persistence.Batch).Require(persistence.IfValue(locationKey(id), raw)).Del(locationKey(id))
	if holder, err := l.store.Get(ctx, nameKey(rec.Name)); err == nil && string(holder) == id {
		b.Del(nameKey(rec.Name))
	}
	if err := l.d.Runtime.Audit(b, kit.AuditOf(ctx).On("", id, "")); err != nil {
		return err
	}
	if err := l.store.Commit(ctx, b); persistence.IsConditionFailed(err) {
		return apierr.New(apierr.ErrConflict, "location %s changed while it was deleted; try again", id)
	} else if err != nil {
		return err
	}
	err = l.reconcile(ctx)
	if l.d.Deleted != nil {
		l.d.Deleted(id)
	}
	if l.d.Forget != nil {
		if ferr := l.d.Forget(ctx, id); ferr != nil {
			l.log.Warn("a deleted location's data outside its record is left for the next start to sweep", zap.String("location", id), zap.Error(ferr))
		}
	}
	return err
}

// save writes rec; prev and raw, for a change, are the record as it was read and its
// stored value, which the batch requires unchanged. A name it takes must be free.
// The dispatcher holds the new driver when it returns.
func (l *Locations) save(ctx context.Context, rec, prev *record, raw []byte) error {
	val, err := persistence.Encode(locationVersion, rec)
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(locationKey(rec.ID), val)
	if prev == nil {
		b.Require(persistence.IfAbsent(locationKey(rec.ID)))
	} else {
		b.Require(persistence.IfValue(locationKey(rec.ID), raw))
	}
	if prev == nil || kit.FoldName(prev.Name) != kit.FoldName(rec.Name) {
		if err := kit.NameFree(ctx, l.store, nameKey(rec.Name), "location", rec.Name, rec.ID); err != nil {
			return err
		}
		b.Require(persistence.IfAbsent(nameKey(rec.Name))).Put(nameKey(rec.Name), []byte(rec.ID))
		if prev != nil {
			b.Del(nameKey(prev.Name))
		}
	}
	if err := l.d.Runtime.Audit(b, kit.AuditOf(ctx).On("", rec.ID, "")); err != nil {
		return err
	}
	if err := l.store.Commit(ctx, b); persistence.IsConditionFailed(err) {
		if err := kit.NameFree(ctx, l.store, nameKey(rec.Name), "location", rec.Name, rec.ID); err != nil {
			return err
		}
		return apierr.New(apierr.ErrConflict, "location %s changed while it was written; try again", rec.ID)
	} else if err != nil {
		return err
	}
	return l.reconcile(ctx)
}
