package actors

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"
	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Roles.
const (
	RoleAdmin = "admin"
	RoleUser  = "user"
)

// User is a user as the API shows it. The password hash never leaves the entity's record.
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	TenantID  *string   `json:"tenant_id"`
	CreatedAt time.Time `json:"created_at"`
}

// userRecord is a user as stored under user/<id>.
type userRecord struct {
	User
	PasswordHash string `json:"password_hash"`
}

// userRecordVersion is the schema version of userRecord.
const userRecordVersion = 1

// family is one login's chain of refresh tokens, stored under refresh/<user>/<id>.
// Token n of a family is HMAC(Key, id|n): any token of the family can be told genuine
// without keeping a list of them, and one that is genuine but older than Gen is a reuse.
type family struct {
	ID        string    `json:"id"`
	Key       []byte    `json:"key"`
	Gen       uint64    `json:"gen"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
	Revoked   bool      `json:"revoked"`
}

const familyVersion = 1

// AuthOptions configure passwords and refresh tokens.
type AuthOptions struct {
	// RefreshTTL is the lifetime of a login: each rotation extends it.
	RefreshTTL time.Duration
	// BcryptCost is the password hashing cost (bcrypt.DefaultCost when 0).
	BcryptCost int
	// HashWorkers is how many password hashes (logins, user creations, password
	// changes) run at once (1 when 0). More callers queue; the login rate limit bounds
	// how many.
	HashWorkers int
	// HashCommand, when set, starts the child process each hash worker hashes in, at
	// the lowest OS priority (ServeHashWorker); when empty, hashes are computed in
	// this process at normal priority.
	HashCommand []string
	// AdminEmail and AdminPassword create the first admin when none exists. With no
	// password a random one is generated and logged once.
	AdminEmail    string
	AdminPassword string
}

// Users is the service in front of the users kind.
type Users struct {
	kind      *Kind
	opts      AuthOptions
	dummyHash []byte
	// hasher runs every bcrypt, off the request goroutines and off every mailbox.
	hasher *passwordHasher
}

// Messages of a user entity.
type (
	getUser        struct{}
	getCredentials struct{}
	credentials    struct {
		User User
		Hash string
	}
	openFamily  struct{ TTL time.Duration }
	rotateToken struct {
		Token refreshToken
		TTL   time.Duration
	}
	revokeFamily struct{ Token refreshToken }
	issued       struct {
		User         User
		RefreshToken string
	}
	revoked    struct{}
	updateUser struct {
		Name *string
		Hash *string
	}
	deleteUser struct{}
	// createUser is a kind-level message: creates are serialised by the supervisor so
	// that an e-mail address is never taken twice. Its fields are already validated
	// and the password already hashed (Create does both before asking).
	createUser struct {
		Email, Name, Role, Hash string
		TenantID                *string
	}
)

func startUsers(s *System, opts AuthOptions) (_ *Users, err error) {
	if opts.BcryptCost == 0 {
		opts.BcryptCost = bcrypt.DefaultCost
	}
	if opts.RefreshTTL <= 0 {
		opts.RefreshTTL = 720 * time.Hour
	}
	if opts.HashWorkers <= 0 {
		opts.HashWorkers = 1
	}
	hasher := startPasswordHasher(opts.HashWorkers, s.log, nil, opts.HashCommand)
	defer func() {
		if err != nil {
			// System.Stop only stops a Users it was handed.
			hasher.close()
		}
	}()
	// An unknown e-mail is compared against this hash so that it costs what a wrong
	// password costs: the answer's timing does not tell which e-mails exist.
	dummy, err := hasher.generate(context.Background(), randomToken(16), opts.BcryptCost)
	if err != nil {
		return nil, err
	}
	u := &Users{opts: opts, dummyHash: dummy, hasher: hasher}
	u.kind = s.startKind("users", 10*time.Minute, func(id string) entity {
		return &userEntity{sys: s, id: id}
	}, func(ctx actor.Context, msg any) bool {
		m, ok := msg.(*createUser)
		if !ok {
			return false
		}
		usr, err := u.create(s, m)
		if err != nil {
			respondErr(ctx, err)
		} else {
			ctx.Respond(usr)
		}
		return true
	})
	if err := u.bootstrapAdmin(s); err != nil {
		return nil, err
	}
	return u, nil
}

// bootstrapAdmin creates the first admin on first start.
func (u *Users) bootstrapAdmin(s *System) error {
	if _, err := s.store.Get(persistence.Key("meta", "admin")); err == nil {
		return nil
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	pw := u.opts.AdminPassword
	generated := pw == ""
	if generated {
		pw = randomToken(18)
	}
	email := u.opts.AdminEmail
	if email == "" {
		email = "admin@localhost"
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	usr, err := u.Create(ctx, email, "Administrator", RoleAdmin, pw, nil)
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(persistence.Key("meta", "admin"), []byte(usr.ID))
	if generated {
		// Kept until the server serves and logs it (app.Start): a start that fails
		// before that shows it next time instead of losing it. See InitialAdminPassword.
		raw, err := json.Marshal(initialPassword{Email: usr.Email, Password: pw})
		if err != nil {
			return err
		}
		b.Put(initialPasswordKey, raw)
	}
	if err := s.commit(b); err != nil {
		return err
	}
	if generated {
		s.log.Info("created the first admin with a generated password; it is logged once the server serves",
			zap.String("email", usr.Email))
	} else {
		s.log.Info("created the first admin", zap.String("email", usr.Email))
	}
	return nil
}

// Create creates a user; the e-mail must be free.
func (u *Users) Create(ctx context.Context, email, name, role, password string, tenantID *string) (User, error) {
	email = normalizeEmail(email)
	var fields []apierr.FieldError
	if !strings.Contains(email, "@") || len(email) > 254 {
		fields = append(fields, apierr.Field("email", "must be an e-mail address"))
	}
	if len(password) < 8 || len(password) > 72 {
		fields = append(fields, apierr.Field("password", "must be 8..72 characters"))
	}
	if role != RoleAdmin && role != RoleUser {
		fields = append(fields, apierr.Field("role", "must be admin or user"))
	}
	if len(fields) > 0 {
		return User{}, apierr.Invalid(fields...)
	}
	// An e-mail already taken is refused without paying for a hash; the supervisor
	// checks again, serialised, before it writes.
	if _, err := u.kind.sys.store.Get(persistence.Key("user-email", email)); err == nil {
		return User{}, errEmailTaken(email)
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return User{}, err
	}
	// Hashed before the ask: bcrypt never runs inside a mailbox, least of all the
	// supervisor's, which every message to every user goes through.
	hash, err := u.hasher.generate(ctx, password, u.opts.BcryptCost)
	if err != nil {
		return User{}, err
	}
	return ask[User](ctx, u.kind.sys, u.kind.pid, &createUser{Email: email, Name: name, Role: role, Hash: string(hash), TenantID: tenantID})
}

func errEmailTaken(email string) error {
	return apierr.New(apierr.ErrConflict, "a user with e-mail %s exists", email)
}

// create runs inside the users supervisor (serialised). Create validated the message
// and hashed the password.
func (u *Users) create(s *System, m *createUser) (User, error) {
	idx := persistence.Key("user-email", m.Email)
	if _, err := s.store.Get(idx); err == nil {
		return User{}, errEmailTaken(m.Email)
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return User{}, err
	}
	rec := userRecord{User: User{ID: persistence.NewID(), Email: m.Email, Name: m.Name, Role: m.Role,
		TenantID: m.TenantID, CreatedAt: time.Now().UTC()}, PasswordHash: m.Hash}
	val, err := persistence.Encode(userRecordVersion, rec)
	if err != nil {
		return User{}, err
	}
	b := new(persistence.Batch).Put(persistence.Key("user", rec.ID), val).Put(idx, []byte(rec.ID))
	if rec.TenantID != nil {
		b.Put(persistence.Key("user-tenant", *rec.TenantID, rec.ID), nil)
	}
	if err := s.commit(b); err != nil {
		return User{}, err
	}
	return rec.User, nil
}

// UserChange is a partial change of a user by an operator.
type UserChange struct {
	Name     *string `json:"name,omitempty"`
	Password *string `json:"password,omitempty"`
}

// Update changes a user's name or password. A new password revokes every login of the
// user, so a leaked session ends with the password change.
func (u *Users) Update(ctx context.Context, id string, c UserChange) (User, error) {
	msg := &updateUser{Name: c.Name}
	if c.Password != nil {
		if len(*c.Password) < 8 || len(*c.Password) > 72 {
			return User{}, apierr.Invalid(apierr.Field("password", "must be 8..72 characters"))
		}
		// Hashed here, by the background hasher, not in the user's mailbox.
		h, err := u.hasher.generate(ctx, *c.Password, u.opts.BcryptCost)
		if err != nil {
			return User{}, err
		}
		msg.Hash = ptr(string(h))
	}
	if c.Name != nil && len(*c.Name) > 100 {
		return User{}, apierr.Invalid(apierr.Field("name", "must be at most 100 characters"))
	}
	return ask[User](ctx, u.kind.sys, u.kind.pid, &envelope{ID: id, Msg: msg})
}

// Delete deletes a user, its logins and its indexes. The first admin cannot be deleted.
func (u *Users) Delete(ctx context.Context, id string) error {
	_, err := ask[revoked](ctx, u.kind.sys, u.kind.pid, &envelope{ID: id, Msg: &deleteUser{}})
	return err
}

// List returns users in creation order; with a tenant, only that tenant's.
func (u *Users) List(_ context.Context, tenant *string, cursor string, limit int) ([]User, string, error) {
	return scanPage(u.kind.sys.store, persistence.Prefix("user"), cursor, limit, func(r *userRecord) (User, bool) {
		return r.User, inScope(tenant, r.TenantID)
	})
}

// Login checks an e-mail and password and opens a new refresh-token family. A wrong
// password and an unknown e-mail get the same error after the same amount of work.
func (u *Users) Login(ctx context.Context, email, password string) (User, string, error) {
	s := u.kind.sys
	hash := u.dummyHash
	var cred credentials
	found := false
	if id, err := s.store.Get(persistence.Key("user-email", normalizeEmail(email))); err == nil {
		cred, err = ask[credentials](ctx, s, u.kind.pid, &envelope{ID: string(id), Msg: &getCredentials{}})
		if err != nil && !errors.Is(err, apierr.ErrNotFound) {
			return User{}, "", err
		}
		if err == nil {
			hash, found = []byte(cred.Hash), true
		}
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return User{}, "", err
	}
	// bcrypt runs on the background hasher, never inside a mailbox. An unknown e-mail
	// pays one compare too, against the dummy hash.
	match, err := u.hasher.compare(ctx, hash, password)
	if err != nil {
		return User{}, "", err
	}
	if !found || !match {
		return User{}, "", apierr.New(apierr.ErrInvalidCredentials, "invalid e-mail or password")
	}
	res, err := ask[issued](ctx, s, u.kind.pid, &envelope{ID: cred.User.ID, Msg: &openFamily{TTL: u.opts.RefreshTTL}})
	if err != nil {
		return User{}, "", err
	}
	return res.User, res.RefreshToken, nil
}

// Refresh rotates a refresh token: the presented one is spent and a new one returned.
// Presenting a spent token revokes the whole family.
func (u *Users) Refresh(ctx context.Context, token string) (User, string, error) {
	rt, err := parseRefreshToken(token)
	if err != nil {
		return User{}, "", err
	}
	res, err := ask[issued](ctx, u.kind.sys, u.kind.pid, &envelope{ID: rt.UserID, Msg: &rotateToken{Token: rt, TTL: u.opts.RefreshTTL}})
	if errors.Is(err, apierr.ErrNotFound) {
		return User{}, "", errInvalidRefresh
	}
	return res.User, res.RefreshToken, err
}

// Logout revokes the family of a refresh token that belongs to userID.
func (u *Users) Logout(ctx context.Context, userID, token string) error {
	rt, err := parseRefreshToken(token)
	if err != nil {
		return err
	}
	if rt.UserID != userID {
		return errInvalidRefresh
	}
	_, err = ask[revoked](ctx, u.kind.sys, u.kind.pid, &envelope{ID: rt.UserID, Msg: &revokeFamily{Token: rt}})
	if errors.Is(err, apierr.ErrNotFound) {
		return errInvalidRefresh
	}
	return err
}

// stop stops the password hasher; System.Stop calls it once the users kind is down.
func (u *Users) stop() { u.hasher.close() }

// Get returns one user.
func (u *Users) Get(ctx context.Context, id string) (User, error) {
	return ask[User](ctx, u.kind.sys, u.kind.pid, &envelope{ID: id, Msg: &getUser{}})
}

var errInvalidRefresh = apierr.New(apierr.ErrInvalidRefreshToken, "the refresh token is unknown, expired, revoked or reused")

// refreshToken is a parsed refresh token: <user>.<family>.<gen>.<mac>.
type refreshToken struct {
	UserID, FamilyID string
	Gen              uint64
	MAC              []byte
}

func parseRefreshToken(s string) (refreshToken, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 || len(s) > 256 || parts[0] == "" || parts[1] == "" {
		return refreshToken{}, errInvalidRefresh
	}
	gen, err := strconv.ParseUint(parts[2], 10, 64)
	if err != nil {
		return refreshToken{}, errInvalidRefresh
	}
	mac, err := base64.RawURLEncoding.DecodeString(parts[3])
	if err != nil {
		return refreshToken{}, errInvalidRefresh
	}
	return refreshToken{UserID: parts[0], FamilyID: parts[1], Gen: gen, MAC: mac}, nil
}

func (f *family) mac(gen uint64) []byte {
	h := hmac.New(sha256.New, f.Key)
	h.Write([]byte(f.ID))
	h.Write([]byte{'|'})
	h.Write(strconv.AppendUint(nil, gen, 10))
	return h.Sum(nil)
}

func (f *family) token(userID string) string {
	return userID + "." + f.ID + "." + strconv.FormatUint(f.Gen, 10) + "." + base64.RawURLEncoding.EncodeToString(f.mac(f.Gen))
}

// userEntity owns one user record and its refresh-token families.
type userEntity struct {
	sys      *System
	id       string
	rec      *userRecord
	families map[string]*family
}

func (e *userEntity) load() error {
	e.families = map[string]*family{}
	var err error
	if e.rec, err = loadOptional[userRecord](e.sys.store, persistence.Key("user", e.id)); err != nil || e.rec == nil {
		return err
	}
	return e.sys.store.Scan(persistence.Prefix("refresh", e.id), nil, 0, func(_, v []byte) error {
		var f family
		if _, err := persistence.Decode(v, &f); err != nil {
			return err
		}
		e.families[f.ID] = &f
		return nil
	})
}

func (e *userEntity) handle(ctx actor.Context, msg any) {
	if e.rec == nil {
		respondErr(ctx, apierr.NotFound("user", e.id))
		return
	}
	switch m := msg.(type) {
	case *getUser:
		ctx.Respond(e.rec.User)
	case *getCredentials:
		ctx.Respond(credentials{User: e.rec.User, Hash: e.rec.PasswordHash})
	case *openFamily:
		now := time.Now().UTC()
		f := &family{ID: persistence.NewID(), Key: randomBytes(32), Gen: 1, CreatedAt: now, ExpiresAt: now.Add(m.TTL)}
		val, err := persistence.Encode(familyVersion, f)
		if err != nil {
			respondErr(ctx, err)
			return
		}
		// Logins that ended (revoked or expired) are dropped as a new one starts, so a
		// user's families stay few. Their tokens are refused either way: an unknown
		// family answers exactly as a revoked one.
		b := new(persistence.Batch).Put(persistence.Key("refresh", e.id, f.ID), val)
		var stale []string
		for id, old := range e.families {
			if old.Revoked || now.After(old.ExpiresAt) {
				b.Del(persistence.Key("refresh", e.id, id))
				stale = append(stale, id)
			}
		}
		if err := e.sys.commit(b); err != nil {
			respondErr(ctx, err)
			return
		}
		for _, id := range stale {
			delete(e.families, id)
		}
		e.families[f.ID] = f
		ctx.Respond(issued{User: e.rec.User, RefreshToken: f.token(e.id)})
	case *rotateToken:
		f, err := e.check(m.Token)
		if err != nil {
			respondErr(ctx, err)
			return
		}
		next := *f
		next.Gen++
		next.ExpiresAt = time.Now().UTC().Add(m.TTL)
		if err := e.saveFamily(&next); err != nil {
			respondErr(ctx, err)
			return
		}
		*f = next
		ctx.Respond(issued{User: e.rec.User, RefreshToken: f.token(e.id)})
	case *revokeFamily:
		f, ok := e.families[m.Token.FamilyID]
		if !ok || !hmac.Equal(f.mac(m.Token.Gen), m.Token.MAC) {
			respondErr(ctx, errInvalidRefresh)
			return
		}
		if err := e.revoke(f); err != nil {
			respondErr(ctx, err)
			return
		}
		ctx.Respond(revoked{})
	case *updateUser:
		e.update(ctx, m)
	case *deleteUser:
		e.delete(ctx)
	default:
		respondErr(ctx, apierr.New(apierr.ErrInternal, "unexpected message"))
	}
}

func (e *userEntity) update(ctx actor.Context, m *updateUser) {
	next := *e.rec
	if m.Name != nil {
		next.Name = *m.Name
	}
	b := new(persistence.Batch)
	if m.Hash != nil {
		next.PasswordHash = *m.Hash
		for _, f := range e.families {
			if !f.Revoked {
				c := *f
				c.Revoked = true
				val, err := persistence.Encode(familyVersion, &c)
				if err != nil {
					respondErr(ctx, err)
					return
				}
				b.Put(persistence.Key("refresh", e.id, f.ID), val)
			}
		}
	}
	val, err := persistence.Encode(userRecordVersion, next)
	if err != nil {
		respondErr(ctx, err)
		return
	}
	if err := e.sys.commit(b.Put(persistence.Key("user", e.id), val)); err != nil {
		respondErr(ctx, err)
		return
	}
	e.rec = &next
	if m.Hash != nil {
		for _, f := range e.families {
			f.Revoked = true
		}
	}
	ctx.Respond(e.rec.User)
}

func (e *userEntity) delete(ctx actor.Context) {
	if admin, err := e.sys.store.Get(persistence.Key("meta", "admin")); err == nil && string(admin) == e.id {
		respondErr(ctx, apierr.New(apierr.ErrConflict, "the first admin cannot be deleted"))
		return
	}
	b := new(persistence.Batch).Del(persistence.Key("user", e.id)).Del(persistence.Key("user-email", e.rec.Email))
	if e.rec.TenantID != nil {
		b.Del(persistence.Key("user-tenant", *e.rec.TenantID, e.id))
	}
	for id := range e.families {
		b.Del(persistence.Key("refresh", e.id, id))
	}
	if err := e.sys.commit(b); err != nil {
		respondErr(ctx, err)
		return
	}
	e.rec, e.families = nil, map[string]*family{}
	ctx.Respond(revoked{})
}

// check validates a presented token against its family. A genuine token older than the
// family's newest is a reuse: a stolen token is being replayed, or the owner's was, so the
// family is revoked and every token of it, the newest too, stops working.
func (e *userEntity) check(t refreshToken) (*family, error) {
	f, ok := e.families[t.FamilyID]
	if !ok || t.Gen == 0 || t.Gen > f.Gen || !hmac.Equal(f.mac(t.Gen), t.MAC) {
		return nil, errInvalidRefresh
	}
	if f.Revoked || time.Now().After(f.ExpiresAt) {
		return nil, errInvalidRefresh
	}
	if t.Gen < f.Gen {
		if err := e.revoke(f); err != nil {
			return nil, err
		}
		e.sys.log.Warn("refresh token reuse: family revoked", zap.String("user_id", e.id), zap.String("family_id", f.ID))
		return nil, errInvalidRefresh
	}
	return f, nil
}

func (e *userEntity) revoke(f *family) error {
	if f.Revoked {
		return nil
	}
	next := *f
	next.Revoked = true
	if err := e.saveFamily(&next); err != nil {
		return err
	}
	*f = next
	return nil
}

func (e *userEntity) saveFamily(f *family) error {
	val, err := persistence.Encode(familyVersion, f)
	if err != nil {
		return err
	}
	return e.sys.commit(new(persistence.Batch).Put(persistence.Key("refresh", e.id, f.ID), val))
}

func normalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return b
}

func randomToken(n int) string { return base64.RawURLEncoding.EncodeToString(randomBytes(n)) }
