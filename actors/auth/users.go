package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/actors/kit"
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
	// Disabled users cannot log in, and every token they hold has ended.
	Disabled bool `json:"disabled"`
	// TOTPEnabled: the user's logins ask for a code of a second factor.
	TOTPEnabled bool `json:"totp_enabled"`
	// ExternalID is the id another system (a billing system) knows the user by:
	// unique among users, null when none.
	ExternalID *string `json:"external_id"`
}

// userRecord is a user as stored under user/<id>.
type userRecord struct {
	User
	PasswordHash string `json:"password_hash"`
	// TokenGen is the user's token generation: every access token carries the one it
	// was issued under, and a change of password, role, tenant or state bumps it, so
	// that every token issued before stops working at once.
	TokenGen uint64 `json:"token_gen,omitempty"`
	// TOTP is the user's second factor, nil without one (totp.go).
	TOTP *signin.Factor `json:"totp,omitempty"`
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
	// Where and how the login was opened, and when its tokens were last renewed: what
	// its user is shown of it (SessionInfo). Empty in families from before them.
	ClientAddr string    `json:"client_addr,omitempty"`
	UserAgent  string    `json:"user_agent,omitempty"`
	Method     string    `json:"method,omitempty"`
	LastUsedAt time.Time `json:"last_used_at,omitzero"`
	// Restricted: the login was opened without a second factor that its user must
	// have; it may only enrol one (and read its own account) until it has.
	Restricted bool `json:"restricted,omitempty"`
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
	// PasswordChanged, when set, is called after a user's password changed through
	// the API (app removes the first boot's password file with it).
	PasswordChanged func(userID string)
	// ResetMail, when set, mails password reset links (RequestPasswordReset); without
	// it a reset is refused (ErrResetsOff).
	ResetMail ResetMail
	// RequireOperatorTOTP: every operator must sign in with a second factor (see
	// totprequired.go); a tenant requires it of its users itself.
	RequireOperatorTOTP bool
}

// Users is the service in front of the users kind.
type Users struct {
	sys       *system
	kind      *kit.Kind
	opts      AuthOptions
	dummyHash []byte
	// hasher runs every bcrypt, off the request goroutines and off every mailbox.
	hasher *passwordHasher
	// auth maps a user id to its *authState, which Authorize checks every request's
	// token against. Each user's entity publishes its state here whenever it loads or
	// changes it, before it answers the change, so the check costs no message and no
	// store read. Entries stay when an entity passivates: the next change activates it
	// again, and it publishes again. One entry per user seen since start.
	//
	// On a store shared with other members (a cluster) the table holds only deleted
	// users (Gone, final: ids are never reused): see Authorize.
	auth sync.Map
	// shared is whether the store is shared with other members (Store.Shared).
	shared bool
	// standing is a cluster member's cache of the users' standing (standing.go); nil
	// on a single node (auth is exact there) or without a store whose watch keeps time.
	standing *standingCache
	// fence waits out standingFence before a change that ends tokens is answered, on
	// a member with a standing cache; tests replace it.
	fence func()
	// passwordCreator is the Creator token of the generated password this start wrote
	// (initialPassword), "" if it wrote none: on a shared store only the start that
	// generated the password shows it (InitialAdminPassword). Set once, by
	// bootstrapAdmin before startUsers returns; it goes with the Users.
	passwordCreator string
	// resets mails the reset links asked for; nil when AuthOptions.ResetMail is not set.
	resets *signin.Outbox
	// signins are the sign-ins' single-use records: challenges, login links, OpenID
	// Connect states, reset links.
	signins signin.Records
}

// authState is one user's standing as its entity last published it: immutable. It is
// also the answer to getAuth, which may cross members: its fields are exported.
type authState struct {
	Gone     bool // deleted
	Disabled bool
	Gen      uint64
	// Sessions are the ids of the user's logins (refresh-token families) that have not
	// ended: logged out, revoked by a reuse or by a password change.
	Sessions map[string]struct{}
	// Restricted are those of Sessions that must enrol a second factor first.
	Restricted map[string]struct{} `json:",omitempty"`
}

// Session is a login as the edge issues tokens for it.
type Session struct {
	User         User
	RefreshToken string
	// ID is the login's id, its refresh-token family: the "sid" of its access tokens.
	ID string
	// Gen is the user's token generation, the "gen" of its access tokens.
	Gen uint64
	// Restricted: the login may only enrol the second factor its user must have.
	Restricted bool
}

// Messages of a user entity.
type (
	getUser        struct{}
	getCredentials struct{}
	credentials    struct {
		User User
		Hash string
		// Gen is the token generation the hash belongs to.
		Gen uint64
		// TOTP: a right password opens no session, only a challenge for a code.
		TOTP bool
	}
	// openFamily opens a login for a password (or a provider's sign-in) checked against generation Gen, from
	// From.
	openFamily struct {
		TTL  time.Duration
		Gen  uint64
		From Client
		// Restricted: the user must have a second factor and has none.
		Restricted bool
		// Method is how the login was checked (MethodOIDC); empty: a password
		// (MethodPassword), as from members of releases before it.
		Method string `json:",omitempty"`
	}
	// rotateToken renews a login. Checked says Required was looked up (a message of a
	// release before the requirement leaves the login as it is): a login required to
	// have a second factor whose user has none becomes restricted, and one no longer
	// required is restricted no more.
	rotateToken struct {
		Token    refreshToken
		TTL      time.Duration
		Checked  bool
		Required bool
	}
	revokeFamily struct{ Token refreshToken }
	// getAuth asks an entity for its authState (and to publish it).
	getAuth    struct{}
	revoked    struct{}
	updateUser struct {
		ExternalID *string
		// ClearExternalID removes the external id.
		ClearExternalID bool
		Name            *string
		Hash            *string
		Role            *string
		TenantID        *string
		Disabled        *bool
	}
	deleteUser struct{}
	// createUser is a kind-level message (a new user has no entity yet): its batch
	// requires the e-mail's index key to be free, so that an address is never taken
	// twice, on any member. Its fields are already validated and the password already
	// hashed (Create does both before asking).
	createUser struct {
		Email, Name, Role, Hash string
		TenantID                *string
		ExternalID              *string
		// Stamp, for a create made with an Idempotency-Key, is the key's claim,
		// which the create's write carries (kit.Stamp).
		Stamp *kit.Stamp
		// Audit is the request's audit entry, which the create's write carries.
		Audit *kit.AuditEntry
	}
)

func startUsers(s *system, opts AuthOptions) (_ *Users, err error) {
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
	dummy, err := hasher.generate(context.Background(), RandomToken(16), opts.BcryptCost)
	if err != nil {
		return nil, err
	}
	u := &Users{sys: s, opts: opts, dummyHash: dummy, hasher: hasher, shared: s.store.Shared(), signins: signin.Records{Store: s.store},
		standing: newStandingCache(s.store), fence: func() { time.Sleep(standingFence) }}
	u.kind = s.rt.StartKind("users", 10*time.Minute, func(id string) kit.Entity {
		return &userEntity{sys: s, id: id, users: u}
	}, func(ctx *kit.Ctx, msg any) bool {
		m, ok := msg.(*createUser)
		if !ok {
			return false
		}
		usr, err := u.create(s, m)
		if err != nil {
			ctx.Fail(err)
		} else {
			ctx.Respond(usr)
		}
		return true
	})
	if err := u.bootstrapAdmin(s); err != nil {
		return nil, err
	}
	if opts.ResetMail != nil {
		u.resets = signin.StartOutbox(u.signins, s.log, func(ctx context.Context, email string) (signin.Account, bool) {
			return u.resetAccount(ctx, email, opts.ResetMail)
		})
	}
	return u, nil
}

// MigrateEmails is the users' step of schema migration 1→2 (actors.Migrations): it
// gives every stored user the one spelling of its e-mail that login and the login
// limits use (NormalizeEmail), its index entry too, so that no account is reachable by
// one exact spelling only. Users created through Create always were; stores written by
// hand, restored, or by an older normalisation were not. A user whose normalised e-mail
// another user already has is left as it is, with a warning: two accounts are not
// merged.
//
// persistence.Upgrade runs it once, under the cluster's upgrade lock. It stays safe to
// run again or beside other writers (an older member still serving, or a crash before
// the stamp): each user is rewritten in a batch of its own that requires the record to
// be exactly what was read and the new index key to be free, so a user changed
// meanwhile is left to that change, and a second run finds nothing left to do.
func MigrateEmails(ctx context.Context, store persistence.Store, log *zap.Logger) error {
	type stale struct {
		rec userRecord
		raw []byte
	}
	if log == nil {
		log = zap.NewNop()
	}
	var found []stale
	err := store.Scan(ctx, persistence.Prefix("user"), nil, 0, func(_, v []byte) error {
		var rec userRecord
		if _, err := persistence.Decode(v, &rec); err != nil {
			return err
		}
		if rec.Email != NormalizeEmail(rec.Email) {
			found = append(found, stale{rec: rec, raw: append([]byte(nil), v...)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, st := range found {
		rec := st.rec
		email := NormalizeEmail(rec.Email)
		idx := persistence.Key("user-email", email)
		owner, err := store.Get(ctx, idx)
		if err != nil && !errors.Is(err, persistence.ErrNotFound) {
			return err
		}
		if err == nil && string(owner) != rec.ID {
			log.Warn("a stored user's e-mail is another user's once normalised; left as it is",
				zap.String("user_id", rec.ID), zap.String("email", email))
			continue
		}
		b := new(persistence.Batch).Require(persistence.IfValue(persistence.Key("user", rec.ID), st.raw))
		if err == nil {
			b.Require(persistence.IfValue(idx, owner))
		} else {
			b.Require(persistence.IfAbsent(idx))
		}
		old := rec.Email
		rec.Email = email
		val, err := persistence.Encode(userRecordVersion, rec)
		if err != nil {
			return err
		}
		b.Put(persistence.Key("user", rec.ID), val).Del(persistence.Key("user-email", old)).Put(idx, []byte(rec.ID))
		if err := store.Commit(ctx, b); persistence.IsConditionFailed(err) {
			// Changed since the scan, or the e-mail was taken meanwhile: either way it
			// is not this migration's to write.
			log.Info("a stored user's e-mail changed while it was being normalised; left to the change",
				zap.String("user_id", rec.ID), zap.String("email", email))
			continue
		} else if err != nil {
			return err
		}
		log.Info("normalised a stored user's e-mail", zap.String("user_id", rec.ID), zap.String("email", email))
	}
	return nil
}

// bootstrapAdmin creates the first admin on first start. The admin, its e-mail's index
// entry and meta/admin are written in one batch that requires meta/admin to be absent:
// however many members of a cluster start at once on an empty store, one batch lands,
// one admin exists and one generated password is kept (for the member that wrote it to
// log); the others find the admin there and say so.
func (u *Users) bootstrapAdmin(s *system) error {
	ctx, cancel := s.rt.Work()
	defer cancel()
	adminKey := persistence.Key("meta", "admin")
	if _, err := s.store.Get(ctx, adminKey); err == nil {
		return nil
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	pw := u.opts.AdminPassword
	generated := pw == ""
	if generated {
		pw = RandomToken(18)
	}
	email := u.opts.AdminEmail
	if email == "" {
		email = "admin@localhost"
	}
	email = NormalizeEmail(email)
	if err := validateNewUser(email, pw, RoleAdmin); err != nil {
		return err
	}
	hash, err := u.hasher.generate(ctx, pw, u.opts.BcryptCost)
	if err != nil {
		return err
	}
	rec := newUserRecord(&createUser{Email: email, Name: "Administrator", Role: RoleAdmin, Hash: string(hash)})
	val, err := persistence.Encode(userRecordVersion, rec)
	if err != nil {
		return err
	}
	idx := persistence.Key("user-email", email)
	b := new(persistence.Batch).Require(persistence.IfAbsent(adminKey)).Require(persistence.IfAbsent(idx)).
		Put(persistence.Key("user", rec.ID), val).Put(idx, []byte(rec.ID)).Put(adminKey, []byte(rec.ID))
	if generated {
		// Kept until the server serves and logs it (app.Start): a start that fails
		// before that shows it next time instead of losing it. See InitialAdminPassword.
		creator := RandomToken(12)
		raw, err := json.Marshal(initialPassword{Email: rec.Email, Password: pw, Creator: creator})
		if err != nil {
			return err
		}
		b.Put(initialPasswordKey, raw)
		// Kept before the commit, so that the password is this start's to show as
		// soon as it is there; a commit that fails leaves nothing it could match.
		u.passwordCreator = creator
	}
	if err := s.rt.Commit(b); persistence.IsConditionFailed(err) {
		if _, err := s.store.Get(ctx, adminKey); err == nil {
			s.log.Info("the first admin exists: another member created it at the same time")
			return nil
		}
		return errEmailTaken(email)
	} else if err != nil {
		return err
	}
	if generated {
		s.log.Info("created the first admin with a generated password; it is logged once the server serves",
			zap.String("email", rec.Email))
	} else {
		s.log.Info("created the first admin", zap.String("email", rec.Email))
	}
	return nil
}

// Bounds of a user's fields, in bytes as the checks below count them. A password is at
// most 72 bytes because bcrypt reads no further.
const (
	MinPasswordLen, MaxPasswordLen = 8, 72
	MinUserNameLen, MaxUserNameLen = 1, 100
	MinEmailLen, MaxEmailLen       = 3, 254 // a@b, and RFC 5321's longest path
)

// errPasswordField is the answer's line for a password out of bounds.
func errPasswordField() apierr.FieldError {
	return apierr.Field("password", "must be %d..%d characters", MinPasswordLen, MaxPasswordLen)
}

// validateNewUser checks what a new user must have: an e-mail (already normalised), a
// password and a role.
func validateNewUser(email, password, role string) error {
	var fields []apierr.FieldError
	if !strings.Contains(email, "@") || len(email) > MaxEmailLen {
		fields = append(fields, apierr.Field("email", "must be an e-mail address"))
	}
	if len(password) < MinPasswordLen || len(password) > MaxPasswordLen {
		fields = append(fields, errPasswordField())
	}
	if role != RoleAdmin && role != RoleUser {
		fields = append(fields, apierr.Field("role", "must be admin or user"))
	}
	if len(fields) > 0 {
		return apierr.Invalid(fields...)
	}
	return nil
}

// Create creates a user; the e-mail must be free.
func (u *Users) Create(ctx context.Context, email, name, role, password string, tenantID *string) (User, error) {
	return u.CreateUser(ctx, NewUser{Email: email, Name: name, Role: role, Password: password, TenantID: tenantID})
}

// NewUser is a user to create.
type NewUser struct {
	Email, Name, Role, Password string
	TenantID                    *string
	// ExternalID, when set, must be no other user's.
	ExternalID *string
}

// CreateUser is Create with every field of a new user, its external id among them.
func (u *Users) CreateUser(ctx context.Context, nu NewUser) (User, error) {
	email, name, role, password, tenantID := nu.Email, nu.Name, nu.Role, nu.Password, nu.TenantID
	// Made with an Idempotency-Key (ctx carries its stamp), the create's write carries
	// the key's claim, and the retry of a create that applied without an answer gets
	// the user it created (and is not refused for the e-mail it took).
	st := kit.StampOf(ctx)
	if r, ok, err := kit.Recorded[User](st); ok {
		return r, err
	}
	email = NormalizeEmail(email)
	if err := validateNewUser(email, password, role); err != nil {
		return User{}, err
	}
	// An e-mail already taken is refused without paying for a hash; the write itself
	// requires the e-mail's index key to be free (create).
	if _, err := u.sys.store.Get(ctx, persistence.Key("user-email", email)); err == nil {
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
	if err := checkExternalID(nu.ExternalID); err != nil {
		return User{}, err
	}
	return kit.AskRef[User](ctx, u.sys.rt, u.kind.Ref(), &createUser{Email: email, Name: name, Role: role, Hash: string(hash), TenantID: tenantID,
		ExternalID: nu.ExternalID, Stamp: st, Audit: kit.AuditOf(ctx)})
}

func errEmailTaken(email string) error {
	return apierr.New(apierr.ErrConflict, "a user with e-mail %s exists", email)
}

// create runs inside the users supervisor. Create validated the message and hashed the
// password. The batch requires the e-mail's index key to be absent: the supervisor
// serialises creates on one member only, the condition holds across every member.
func (u *Users) create(s *system, m *createUser) (User, error) {
	idx := persistence.Key("user-email", m.Email)
	rec := newUserRecord(m)
	val, err := persistence.Encode(userRecordVersion, rec)
	if err != nil {
		return User{}, err
	}
	b := new(persistence.Batch).Require(persistence.IfAbsent(idx)).Put(persistence.Key("user", rec.ID), val).Put(idx, []byte(rec.ID))
	if rec.ExternalID != nil {
		ext := externalKey(*rec.ExternalID)
		b.Require(persistence.IfAbsent(ext)).Put(ext, []byte(rec.ID))
	}
	if rec.TenantID != nil {
		b.Put(persistence.Key("user-tenant", *rec.TenantID, rec.ID), nil)
	}
	if err := m.Stamp.Carry(b, rec.User); err != nil {
		return User{}, err
	}
	if err := s.rt.Audit(b, m.Audit.On("", rec.ID, kit.Deref(rec.TenantID))); err != nil {
		return User{}, err
	}
	if err := s.rt.Commit(b); persistence.IsConditionFailed(err) {
		ctx, cancel := s.rt.Work()
		defer cancel()
		_, gerr := s.store.Get(ctx, idx)
		if errors.Is(gerr, persistence.ErrNotFound) && rec.ExternalID != nil {
			if _, xerr := s.store.Get(ctx, externalKey(*rec.ExternalID)); xerr == nil {
				return User{}, errExternalTaken(*rec.ExternalID)
			}
		}
		if m.Stamp != nil && errors.Is(gerr, persistence.ErrNotFound) {
			// The e-mail is free: the claim changed, a retry took the request over.
			return User{}, errTakenOver
		}
		return User{}, errEmailTaken(m.Email)
	} else if err != nil {
		return User{}, err
	}
	return rec.User, nil
}

// newUserRecord is the record of a user about to be created.
func newUserRecord(m *createUser) userRecord {
	return userRecord{User: User{ID: persistence.NewID(), Email: m.Email, Name: m.Name, Role: m.Role,
		TenantID: m.TenantID, ExternalID: m.ExternalID, CreatedAt: time.Now().UTC()}, PasswordHash: m.Hash}
}

// UserChange is a partial change of a user by an operator.
type UserChange struct {
	Name     *string `json:"name,omitempty" openapi:"limit=user.name"`
	Password *string `json:"password,omitempty" openapi:"limit=user.password"`
	// Role moves a user between admin and user: an admin has no tenant (it is
	// dropped), a user needs one (tenant_id in the same change when it had none).
	Role *string `json:"role,omitempty" openapi:"enum=admin|user"`
	// TenantID moves a user to another tenant.
	TenantID *string `json:"tenant_id,omitempty" openapi:"minLength=1,limit=id"`
	// Disabled suspends a user (true) or lets it log in again (false).
	Disabled *bool `json:"disabled,omitempty"`
	// ExternalID sets the id another system knows the user by; null removes it.
	ExternalID *string `json:"external_id,omitempty" openapi:"nullable,limit=external_id"`
	// ClearExternalID removes the external id (the body had "external_id": null).
	ClearExternalID bool `json:"-"`
}

// Update changes a user's name, password, role, tenant or state. Every change but the
// name ends every token the user holds, access and refresh, at once: a leaked session
// ends with the password change, and no token keeps a role or tenant the user lost.
func (u *Users) Update(ctx context.Context, id string, c UserChange) (User, error) {
	msg := &updateUser{Name: c.Name, Role: c.Role, TenantID: c.TenantID, Disabled: c.Disabled, ExternalID: c.ExternalID,
		ClearExternalID: c.ClearExternalID}
	if err := checkExternalID(c.ExternalID); err != nil {
		return User{}, err
	}
	if c.Role != nil && *c.Role != RoleAdmin && *c.Role != RoleUser {
		return User{}, apierr.Invalid(apierr.Field("role", "must be admin or user"))
	}
	if c.TenantID != nil {
		if err := u.sys.tenantExists(ctx, *c.TenantID); err != nil {
			if errors.Is(err, apierr.ErrNotFound) {
				return User{}, apierr.Invalid(apierr.Field("tenant_id", "no tenant %s", *c.TenantID))
			}
			return User{}, err
		}
	}
	if c.Password != nil {
		if len(*c.Password) < MinPasswordLen || len(*c.Password) > MaxPasswordLen {
			return User{}, apierr.Invalid(errPasswordField())
		}
		// Hashed here, by the background hasher, not in the user's mailbox.
		h, err := u.hasher.generate(ctx, *c.Password, u.opts.BcryptCost)
		if err != nil {
			return User{}, err
		}
		msg.Hash = kit.Ptr(string(h))
	}
	if c.Name != nil && len(*c.Name) > MaxUserNameLen {
		return User{}, apierr.Invalid(apierr.Field("name", "must be at most %d characters", MaxUserNameLen))
	}
	usr, err := kit.Ask[User](ctx, u.kind, id, msg)
	if err == nil && c.Password != nil && u.opts.PasswordChanged != nil {
		u.opts.PasswordChanged(id)
	}
	return usr, err
}

// Delete deletes a user, its logins and its indexes. The first admin cannot be deleted.
func (u *Users) Delete(ctx context.Context, id string) error {
	_, err := kit.Ask[revoked](ctx, u.kind, id, &deleteUser{})
	return err
}

// List returns users in creation order; with a tenant, only that tenant's.
func (u *Users) List(ctx context.Context, tenant *string, cursor string, limit int) ([]User, string, error) {
	return kit.ScanPage(ctx, u.sys.store, persistence.Prefix("user"), cursor, limit, func(r *userRecord) (User, bool) {
		return r.User, kit.InScope(tenant, r.TenantID)
	})
}

var errInvalidCredentials = apierr.New(apierr.ErrInvalidCredentials, "invalid e-mail or password")

// Login checks an e-mail and password and opens a new refresh-token family. A wrong
// password, an unknown e-mail and a disabled user get the same error after the same
// amount of work.
func (u *Users) Login(ctx context.Context, email, password string, from Client) (Session, error) {
	s := u.sys
	hash := u.dummyHash
	var cred credentials
	found := false
	if id, err := s.store.Get(ctx, persistence.Key("user-email", NormalizeEmail(email))); err == nil {
		cred, err = kit.Ask[credentials](ctx, u.kind, string(id), &getCredentials{})
		if err != nil && !errors.Is(err, apierr.ErrNotFound) {
			return Session{}, err
		}
		if err == nil {
			hash, found = []byte(cred.Hash), true
		}
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return Session{}, err
	}
	// bcrypt runs on the background hasher, never inside a mailbox. An unknown e-mail
	// pays one compare too, against the dummy hash.
	match, err := u.hasher.compare(ctx, hash, password)
	if err != nil {
		return Session{}, err
	}
	if !found || !match || cred.User.Disabled {
		return Session{}, errInvalidCredentials
	}
	from.Agent = clip(from.Agent, maxAgentLen)
	if cred.TOTP {
		return Session{}, u.challenge(ctx, cred, from)
	}
	required, err := u.totpRequired(ctx, cred.User)
	if err != nil {
		return Session{}, err
	}
	return kit.Ask[Session](ctx, u.kind, cred.User.ID, &openFamily{TTL: u.opts.RefreshTTL, Gen: cred.Gen, From: from, Restricted: required})
}

// Refresh rotates a refresh token: the presented one is spent and a new one returned.
// Presenting a spent token revokes the whole family.
func (u *Users) Refresh(ctx context.Context, token string) (Session, error) {
	rt, err := parseRefreshToken(token)
	if err != nil {
		return Session{}, err
	}
	// The second factor's requirement is looked up at each renewal too, so that one
	// an operator turns on holds within an access token's lifetime.
	usr, err := u.Get(ctx, rt.UserID)
	if errors.Is(err, apierr.ErrNotFound) {
		return Session{}, errInvalidRefresh
	}
	if err != nil {
		return Session{}, err
	}
	required, err := u.totpRequired(ctx, usr)
	if err != nil {
		return Session{}, err
	}
	res, err := kit.Ask[Session](ctx, u.kind, rt.UserID, &rotateToken{Token: rt, TTL: u.opts.RefreshTTL, Checked: true, Required: required})
	if errors.Is(err, apierr.ErrNotFound) {
		return Session{}, errInvalidRefresh
	}
	return res, err
}

var errSessionEnded = apierr.New(apierr.ErrUnauthorized, "the access token has ended: its login was ended, or its user was changed, disabled or deleted")

// Authorize checks a verified access token against its user's current standing: the
// user exists and is not disabled, the token's generation is the user's (no password,
// role, tenant or state change since it was issued) and its login has not ended.
//
// On a single node it reads the state the user's entity published, with no message and
// no store read; the first check of a user since start asks the entity, which loads it.
//
// In a cluster the entity may be active on another member, and its memory is not this
// member's. There the check reads this member's standingCache (standing.go), which
// serves only while the store's watch is known to have heard of every change
// acknowledged a moment ago, and which every change that ends tokens waits out before
// it is answered; otherwise, and for a user not in it, it asks the user's entity, on
// whichever member it is active, and keeps the answer; so it does when the cache
// refuses the token, which may be from a login the cache has not heard of yet. Without
// a cache (a shared store whose watch keeps no clock) it asks every time. Deleted users
// stay in the table: that is final.
//
// ctx is the request's: the check asks no longer than it lasts (nor than
// kit.DefaultTimeout), so a request whose client went away stops waiting for the entity.
func (u *Users) Authorize(ctx context.Context, userID, sessionID string, gen uint64) error {
	var st *authState
	if v, ok := u.auth.Load(userID); ok {
		st = v.(*authState)
	}
	if u.shared && (st == nil || !st.Gone) {
		st = nil
		if u.standing != nil {
			if cached, ok := u.standing.Get(userID); ok {
				// A cache that lets the token through is right (a change that ends it
				// is heard before it is answered); one that refuses it may only not
				// have heard yet of the login, or of the generation, the token is from
				// (a change that adds is answered at once): the entity decides that.
				if err := cached.check(sessionID, gen); err == nil {
					return nil
				}
			}
		}
	}
	if st == nil {
		var err error
		if st, err = u.askAuth(ctx, userID); err != nil {
			return err
		}
	}
	return st.check(sessionID, gen)
}

// check is whether a token of login sessionID and generation gen stands.
func (st *authState) check(sessionID string, gen uint64) error {
	if st.Gone || st.Disabled || st.Gen != gen {
		return errSessionEnded
	}
	if _, live := st.Sessions[sessionID]; !live {
		return errSessionEnded
	}
	if _, r := st.Restricted[sessionID]; r {
		return errEnrolFirst
	}
	return nil
}

// askAuth asks the user's entity for its standing; in a cluster's standingCache it
// keeps the answer.
func (u *Users) askAuth(ctx context.Context, userID string) (*authState, error) {
	ctx, cancel := context.WithTimeout(ctx, kit.DefaultTimeout)
	defer cancel()
	var gen uint64
	if u.standing != nil {
		gen = u.standing.Begin()
	}
	st, err := kit.Ask[*authState](ctx, u.kind, userID, &getAuth{})
	if errors.Is(err, apierr.ErrNotFound) {
		// The token is genuine, so the user existed: it was deleted, and ids are
		// never reused. Remembered, so its tokens cost no message either.
		st = &authState{Gone: true}
		u.auth.Store(userID, st)
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if u.standing != nil {
		u.standing.Keep(userID, st, gen)
	}
	return st, nil
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
	_, err = kit.Ask[revoked](ctx, u.kind, rt.UserID, &revokeFamily{Token: rt})
	if errors.Is(err, apierr.ErrNotFound) {
		return errInvalidRefresh
	}
	return err
}

// Stop stops the reset mails and the password hasher; System.Stop calls it once the
// users kind is down.
func (u *Users) Stop() {
	if u.resets != nil {
		u.resets.Close()
	}
	u.hasher.close()
}

// TenantHasUsers reports whether a tenant has a user (a tenant that has one cannot be
// deleted).
func (u *Users) TenantHasUsers(ctx context.Context, tenant string) (bool, error) {
	found := false
	err := u.sys.store.Scan(ctx, persistence.Prefix("user-tenant", tenant), nil, 1, func(_, _ []byte) error { found = true; return nil })
	return found, err
}

// Get returns one user.
func (u *Users) Get(ctx context.Context, id string) (User, error) {
	return kit.Ask[User](ctx, u.kind, id, &getUser{})
}

var errInvalidRefresh = apierr.New(apierr.ErrInvalidRefreshToken, "the refresh token is unknown, expired, revoked or reused")

// reuseAudited is e, the entry of a refresh that presented a spent token, as the
// failure it is: the login's revocation is recorded with the refusal's code and why.
func reuseAudited(e *kit.AuditEntry) *kit.AuditEntry {
	if e == nil {
		return nil
	}
	c := *e
	c.Result = apierr.From(errInvalidRefresh).Code
	c.Reason = "a spent refresh token was presented again: its login was ended"
	return &c
}

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
	sys      *system
	users    *Users
	id       string
	rec      *userRecord
	families map[string]*family
	// auth is the standing last published: the answer to getAuth.
	auth *authState
	// audit is the audit entry of the request being handled, which its write carries.
	audit *kit.AuditEntry
}

// audited is the request's audit entry as the user's write records it: on the user,
// in its tenant, and made by the user when the request named no one (a login).
func (e *userEntity) audited() *kit.AuditEntry {
	if e.rec == nil {
		return e.audit
	}
	return e.audit.By(e.id).On("", e.id, kit.Deref(e.rec.TenantID))
}

// publish makes the entity's current standing the one Authorize checks tokens
// against. Called after every change of it, before the change is answered. In a
// cluster only the entity keeps it (and a deletion goes to the table), and a change
// that ends tokens is held for standingFence before it is answered, so that every
// member's standing cache has heard of it by then: see Authorize and standing.go.
func (e *userEntity) publish() *authState {
	prev := e.auth
	st := &authState{Gone: e.rec == nil}
	if e.rec != nil {
		st.Disabled, st.Gen = e.rec.Disabled, e.rec.TokenGen
		st.Sessions = make(map[string]struct{}, len(e.families))
		for id, f := range e.families {
			if f.Revoked {
				continue
			}
			st.Sessions[id] = struct{}{}
			if f.Restricted {
				if st.Restricted == nil {
					st.Restricted = map[string]struct{}{}
				}
				st.Restricted[id] = struct{}{}
			}
		}
	}
	e.auth = st
	if !e.users.shared || st.Gone {
		e.users.auth.Store(e.id, st)
	}
	if e.users.standing != nil && ends(prev, st) {
		// In the entity's mailbox: this user's next messages wait too, for this
		// rare change (an ask of its standing meanwhile gets the new one after it).
		e.users.fence()
	}
	return st
}

// session is the answer to a login or a refresh of family f.
func (e *userEntity) session(f *family) Session {
	return Session{User: e.rec.User, RefreshToken: f.token(e.id), ID: f.ID, Gen: e.rec.TokenGen, Restricted: f.Restricted}
}

func (e *userEntity) Load() error {
	e.families = map[string]*family{}
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	var err error
	if e.rec, err = kit.LoadOptional[userRecord](ctx, e.sys.store, persistence.Key("user", e.id)); err != nil || e.rec == nil {
		// An id with no record publishes nothing: unknown ids must not fill the table.
		return err
	}
	if err := e.sys.store.Scan(ctx, persistence.Prefix("refresh", e.id), nil, 0, func(_, v []byte) error {
		var f family
		if _, err := persistence.Decode(v, &f); err != nil {
			return err
		}
		e.families[f.ID] = &f
		return nil
	}); err != nil {
		return err
	}
	e.publish()
	return nil
}

func (e *userEntity) Handle(ctx *kit.Ctx, msg any) {
	e.audit = ctx.Audit()
	if e.rec == nil {
		ctx.Fail(apierr.NotFound("user", e.id))
		return
	}
	switch m := msg.(type) {
	case *getUser:
		ctx.Respond(e.rec.User)
	case *getCredentials:
		ctx.Respond(credentials{User: e.rec.User, Hash: e.rec.PasswordHash, Gen: e.rec.TokenGen, TOTP: e.rec.TOTP != nil && e.rec.TOTP.Confirmed})
	case *getAuth:
		if e.auth == nil {
			e.publish()
		}
		ctx.Respond(e.auth)
	case *openFamily:
		if e.rec.Disabled || e.rec.TokenGen != m.Gen || (e.rec.TOTP != nil && e.rec.TOTP.Confirmed) {
			// Disabled, or its password, role or tenant changed, between the password
			// check and here: the password checked may be the old one, and the change
			// promised to end every login, this one included. Or a second factor was
			// turned on meanwhile, which this login has not given.
			ctx.Fail(errInvalidCredentials)
			return
		}
		method := m.Method
		if method == "" {
			method = MethodPassword
		}
		f, err := e.openInto(new(persistence.Batch), m.TTL, m.From, method, m.Restricted)
		if err != nil {
			ctx.Fail(err)
			return
		}
		ctx.Respond(e.session(f))
	case *rotateToken:
		f, err := e.check(m.Token)
		if err != nil {
			ctx.Fail(err)
			return
		}
		next := *f
		next.Gen++
		if m.Checked {
			next.Restricted = restrictOnRenewal(f.Restricted, m.Required, e.rec.TOTP != nil && e.rec.TOTP.Confirmed)
		}
		next.LastUsedAt = time.Now().UTC()
		next.ExpiresAt = next.LastUsedAt.Add(m.TTL)
		if err := e.saveFamily(&next); err != nil {
			ctx.Fail(err)
			return
		}
		*f = next
		e.publish()
		ctx.Respond(e.session(f))
	case *revokeFamily:
		f, ok := e.families[m.Token.FamilyID]
		if !ok || !hmac.Equal(f.mac(m.Token.Gen), m.Token.MAC) {
			ctx.Fail(errInvalidRefresh)
			return
		}
		if err := e.revoke(f); err != nil {
			ctx.Fail(err)
			return
		}
		ctx.Respond(revoked{})
	case *listSessions:
		e.listSessions(ctx)
	case *endSession:
		e.endSession(ctx, m)
	case *changePassword:
		e.changePassword(ctx, m)
	case *resetPassword:
		e.resetPassword(ctx, m)
	case *enrolTOTP, *confirmTOTP, *disableTOTP:
		e.handleTOTP(ctx, m)
	case *totpLogin:
		e.totpLogin(ctx, m)
	case *redeemLink:
		e.redeemLink(ctx, m)
	case *updateUser:
		e.update(ctx, m)
	case *deleteUser:
		e.delete(ctx)
	default:
		ctx.Fail(apierr.New(apierr.ErrInternal, "unexpected message"))
	}
}

func (e *userEntity) update(ctx *kit.Ctx, m *updateUser) {
	next := *e.rec
	if m.Name != nil {
		next.Name = *m.Name
	}
	if m.Hash != nil {
		next.PasswordHash = *m.Hash
	}
	if m.Role != nil {
		next.Role = *m.Role
		if next.Role == RoleAdmin {
			next.TenantID = nil
		}
	}
	if m.TenantID != nil {
		next.TenantID = kit.Ptr(*m.TenantID)
	}
	if m.Disabled != nil {
		next.Disabled = *m.Disabled
	}
	if m.ExternalID != nil {
		next.ExternalID = kit.Ptr(*m.ExternalID)
	}
	if m.ClearExternalID {
		next.ExternalID = nil
	}
	if next.Role == RoleUser && next.TenantID == nil {
		ctx.Fail(apierr.Invalid(apierr.Field("tenant_id", "a user belongs to a tenant")))
		return
	}
	if next.Role == RoleAdmin && next.TenantID != nil {
		ctx.Fail(apierr.Invalid(apierr.Field("tenant_id", "an admin belongs to no tenant")))
		return
	}
	moved := !sameTenant(next.TenantID, e.rec.TenantID)
	// Whatever changes what the user may do, or proves a token stolen, ends every
	// token it holds: the generation moves on (its access tokens) and every login is
	// revoked (its refresh tokens).
	endTokens := m.Hash != nil || next.Role != e.rec.Role || moved || next.Disabled != e.rec.Disabled
	if (next.Role != e.rec.Role || next.Disabled) && e.isFirstAdmin() {
		ctx.Fail(apierr.New(apierr.ErrConflict, "the first admin cannot be demoted or disabled"))
		return
	}
	b := new(persistence.Batch)
	var ended []*family
	if endTokens {
		next.TokenGen++
		var err error
		if ended, err = e.revokeInto(b, ""); err != nil {
			ctx.Fail(err)
			return
		}
	}
	if m.ExternalID != nil && (e.rec.ExternalID == nil || *e.rec.ExternalID != *m.ExternalID) {
		ext := externalKey(*m.ExternalID)
		b.Require(persistence.IfAbsent(ext)).Put(ext, []byte(e.id))
		if e.rec.ExternalID != nil {
			b.Del(externalKey(*e.rec.ExternalID))
		}
	}
	if next.ExternalID == nil && e.rec.ExternalID != nil {
		b.Del(externalKey(*e.rec.ExternalID)) // removed: free for another user
	}
	if moved {
		if e.rec.TenantID != nil {
			b.Del(persistence.Key("user-tenant", *e.rec.TenantID, e.id))
		}
		if next.TenantID != nil {
			b.Put(persistence.Key("user-tenant", *next.TenantID, e.id), nil)
		}
	}
	if err := e.commitUser(b, next, ended); err != nil {
		if persistence.IsConditionFailed(err) && m.ExternalID != nil {
			err = errExternalTaken(*m.ExternalID)
		}
		ctx.Fail(err)
		return
	}
	ctx.Respond(e.rec.User)
}

// openInto opens a new login (a refresh-token family) from a client, opened by method,
// in batch b (with whatever else b holds), commits b and makes the login the entity's.
func (e *userEntity) openInto(b *persistence.Batch, ttl time.Duration, from Client, method string, restricted bool) (*family, error) {
	now := time.Now().UTC()
	f := &family{ID: persistence.NewID(), Key: signin.RandomBytes(32), Gen: 1, CreatedAt: now, ExpiresAt: now.Add(ttl),
		ClientAddr: from.Addr, UserAgent: from.Agent, Method: method, LastUsedAt: now, Restricted: restricted}
	val, err := persistence.Encode(familyVersion, f)
	if err != nil {
		return nil, err
	}
	// Logins that ended (revoked or expired) are dropped as a new one starts, so a
	// user's families stay few, and so are the oldest live ones beyond MaxSessions.
	// Their tokens are refused either way: an unknown family answers exactly as a
	// revoked one.
	b.Put(persistence.Key("refresh", e.id, f.ID), val)
	stale := e.dropped(now)
	for _, id := range stale {
		b.Del(persistence.Key("refresh", e.id, id))
	}
	if err := e.sys.rt.Audit(b, e.audited()); err != nil {
		return nil, err
	}
	if err := e.sys.rt.Commit(b); err != nil {
		return nil, err
	}
	for _, id := range stale {
		delete(e.families, id)
	}
	e.families[f.ID] = f
	e.publish()
	return f, nil
}

// revokeInto puts into b the revocation of every live login of the user but keep's,
// and returns the logins it revokes, for commitUser.
func (e *userEntity) revokeInto(b *persistence.Batch, keep string) ([]*family, error) {
	var ended []*family
	for _, f := range e.families {
		if f.Revoked || f.ID == keep {
			continue
		}
		c := *f
		c.Revoked = true
		val, err := persistence.Encode(familyVersion, &c)
		if err != nil {
			return nil, err
		}
		b.Put(persistence.Key("refresh", e.id, f.ID), val)
		ended = append(ended, f)
	}
	return ended, nil
}

// commitUser writes next as the user's record together with b, then makes it the
// entity's, marks the ended logins revoked and publishes the user's new standing.
func (e *userEntity) commitUser(b *persistence.Batch, next userRecord, ended []*family) error {
	next.TOTPEnabled = next.TOTP != nil && next.TOTP.Confirmed
	val, err := persistence.Encode(userRecordVersion, next)
	if err != nil {
		return err
	}
	if err := e.sys.rt.Audit(b, e.audited()); err != nil {
		return err
	}
	if err := e.sys.rt.Commit(b.Put(persistence.Key("user", e.id), val)); err != nil {
		return err
	}
	e.rec = &next
	for _, f := range ended {
		f.Revoked = true
	}
	e.publish()
	return nil
}

func sameTenant(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// isFirstAdmin reports whether this is the admin created at first start, which can
// be neither deleted, demoted nor disabled: there is always an operator.
func (e *userEntity) isFirstAdmin() bool {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	admin, err := e.sys.store.Get(ctx, persistence.Key("meta", "admin"))
	return err == nil && string(admin) == e.id
}

func (e *userEntity) delete(ctx *kit.Ctx) {
	if e.isFirstAdmin() {
		ctx.Fail(apierr.New(apierr.ErrConflict, "the first admin cannot be deleted"))
		return
	}
	b := new(persistence.Batch).Del(persistence.Key("user", e.id)).Del(persistence.Key("user-email", e.rec.Email))
	if e.rec.ExternalID != nil {
		b.Del(externalKey(*e.rec.ExternalID))
	}
	if e.rec.TenantID != nil {
		b.Del(persistence.Key("user-tenant", *e.rec.TenantID, e.id))
	}
	for id := range e.families {
		b.Del(persistence.Key("refresh", e.id, id))
	}
	// The user's API keys go with it (they stopped working with it anyway).
	if err := e.deleteKeysInto(b); err != nil {
		ctx.Fail(err)
		return
	}
	if err := e.sys.rt.Audit(b, e.audited()); err != nil {
		ctx.Fail(err)
		return
	}
	if err := e.sys.rt.Commit(b); err != nil {
		ctx.Fail(err)
		return
	}
	e.rec, e.families = nil, map[string]*family{}
	e.publish()
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
		// The revocation is what the refused request did: its entry says so, as the
		// refusal it is (the edge then writes no other).
		if err := e.revokeAs(f, reuseAudited(e.audited())); err != nil {
			return nil, err
		}
		e.sys.log.Warn("refresh token reuse: family revoked", zap.String("user_id", e.id), zap.String("family_id", f.ID))
		return nil, errInvalidRefresh
	}
	return f, nil
}

func (e *userEntity) revoke(f *family) error { return e.revokeAs(f, e.audited()) }

// revokeAs revokes f with audit, the entry its batch carries.
func (e *userEntity) revokeAs(f *family, audit *kit.AuditEntry) error {
	if f.Revoked {
		return nil
	}
	next := *f
	next.Revoked = true
	if err := e.saveFamilyAs(&next, audit); err != nil {
		return err
	}
	*f = next
	e.publish()
	return nil
}

func (e *userEntity) saveFamily(f *family) error { return e.saveFamilyAs(f, e.audited()) }

// saveFamilyAs writes f with audit, the entry its batch carries.
func (e *userEntity) saveFamilyAs(f *family, audit *kit.AuditEntry) error {
	val, err := persistence.Encode(familyVersion, f)
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(persistence.Key("refresh", e.id, f.ID), val)
	if err := e.sys.rt.Audit(b, audit); err != nil {
		return err
	}
	return e.sys.rt.Commit(b)
}

// NormalizeEmail is the one spelling of an e-mail address that vmplane stores, keeps
// unique, logs in with and rate-limits by: surrounding white space (spaces, tabs,
// newlines) trimmed and letters lower-cased. Every spelling that reaches one account
// is one key, so no spelling gets a bucket of its own.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// RandomToken is n random bytes, base64url (signin.RandomToken).
func RandomToken(n int) string { return signin.RandomToken(n) }

// Absent implements kit.Absence.
func (e *userEntity) Absent() bool { return e.rec == nil }

// The runtime finds these behaviours by interface: the compiler checks them, since a
// misnamed method would silently turn them off.
var (
	_ kit.Absence = (*userEntity)(nil)
)

// MaxExternalIDLen bounds an external id.
const MaxExternalIDLen = 128

// externalKey indexes users by external id: user-ext/<id>.
func externalKey(ext string) []byte { return persistence.Key("user-ext", ext) }

func checkExternalID(ext *string) error {
	if ext != nil && (*ext == "" || len(*ext) > MaxExternalIDLen || strings.ContainsAny(*ext, "/\x00")) {
		return apierr.Invalid(apierr.Field("external_id", "must be 1..%d characters, without / or NUL", MaxExternalIDLen))
	}
	return nil
}

func errExternalTaken(ext string) error {
	return apierr.New(apierr.ErrConflict, "another user has external_id %s", ext)
}

// ByExternalID finds the user another system knows by ext; none is not found.
func (u *Users) ByExternalID(ctx context.Context, ext string) (User, error) {
	id, err := u.sys.store.Get(ctx, externalKey(ext))
	if errors.Is(err, persistence.ErrNotFound) {
		return User{}, apierr.NotFound("user with external_id", ext)
	}
	if err != nil {
		return User{}, err
	}
	return u.Get(ctx, string(id))
}
