package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/fresh"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// API keys: credentials for programs (a billing system, a script), not people. A key
// belongs to the user who made it and never does more than that user may: it acts with
// the user's current role and tenant (a key of a disabled or deleted user stops
// working), within the scopes it was given, and, when made for a tenant, only within
// that tenant. Its secret is shown once, at its creation; the store keeps its SHA-256
// (the secret has 256 random bits: a slow hash would only cost every request).

// APIKeyPrefix starts every key's secret, so that a bearer token tells a key from a
// JWT at a glance (and secret scanners find leaked ones).
const APIKeyPrefix = "vmp_"

// Scopes of an API key.
const (
	// ScopeRead reads (every GET).
	ScopeRead = "read"
	// ScopeMachinesWrite changes machines, their firewall rules, schedules, backups and
	// health checks.
	ScopeMachinesWrite = "machines:write"
	// ScopeTenantsWrite creates, changes and deletes tenants and users.
	ScopeTenantsWrite = "tenants:write"
	// ScopeBilling suspends and unsuspends tenants and machines, terminates machines,
	// and reads their usage.
	ScopeBilling = "billing"
	// ScopeAdmin does everything its user may, API keys included.
	ScopeAdmin = "admin"
)

// Scopes lists every scope, in the order the document names them.
var Scopes = []string{ScopeRead, ScopeMachinesWrite, ScopeTenantsWrite, ScopeBilling, ScopeAdmin}

// Bounds of an API key's fields.
const (
	MinKeyNameLen, MaxKeyNameLen = 1, 100
	MaxKeyCIDRs                  = 32
	// MaxKeyCIDRLen bounds one allowed CIDR: an IPv6 address and its prefix length.
	MaxKeyCIDRLen = 43
	// KeyUseResolution is how often a key's last_used_at is written at most.
	KeyUseResolution = time.Minute
)

// APIKey is an API key as the API shows it: never its secret.
type APIKey struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	UserID string   `json:"user_id"`
	Scopes []string `json:"scopes"`
	// TenantID, when set, keeps the key within that tenant.
	TenantID *string `json:"tenant_id"`
	// AllowedCIDRs, when not empty, are the only client addresses the key works from.
	AllowedCIDRs []string   `json:"allowed_cidrs"`
	ExpiresAt    *time.Time `json:"expires_at"`
	CreatedAt    time.Time  `json:"created_at"`
	// LastUsedAt is kept to the minute (written at most once a minute).
	LastUsedAt *time.Time `json:"last_used_at"`
}

// NewAPIKey is an API key as its creation answers it: with its secret, this once.
type NewAPIKey struct {
	APIKey
	Secret string `json:"secret"`
}

// APIKeySpec asks for a new key.
type APIKeySpec struct {
	Name         string
	Scopes       []string
	TenantID     *string
	ExpiresAt    *time.Time
	AllowedCIDRs []string
}

// keyRecord is a key as stored under apikey/<id>, with apikey-user/<user>/<id> beside.
type keyRecord struct {
	APIKey
	Hash string `json:"hash"`
}

const keyRecordVersion = 1

func keyKey(id string) []byte           { return persistence.Key("apikey", id) }
func keyUserKey(user, id string) []byte { return persistence.Key("apikey-user", user, id) }
func hashSecret(secret string) string {
	s := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(s[:])
}
func errKeyNotFound(id string) error      { return apierr.NotFound("API key", id) }
func keyInvalid(field, msg string) error  { return apierr.Invalid(apierr.Field(field, "%s", msg)) }
func keyRefused(why string) *apierr.Error { return apierr.New(apierr.ErrUnauthorized, "%s", why) }

// APIKeys keeps the API keys.
type APIKeys struct {
	sys   *system
	users *Users
	// cache holds the records of keys in use (keycache.go).
	cache *keyCache
	// owners is a cluster member's copy of the users its keys act as (keyUser); nil
	// on a single node.
	owners *fresh.Cache[User]
}

// KeyPrincipal is who a request made with a key acts as.
type KeyPrincipal struct {
	Key  APIKey
	User User
	// TenantID is the tenant the key acts within: the key's, else its user's.
	TenantID *string
	Role     string
}

// Create makes a key for user (the caller), checked against what the user may: a
// tenant user's key is for its own tenant; an operator's may be for any tenant that
// exists, or none (all).
func (k *APIKeys) Create(ctx context.Context, owner User, spec APIKeySpec) (NewAPIKey, error) {
	name := strings.TrimSpace(spec.Name)
	if len(name) < MinKeyNameLen || len(name) > MaxKeyNameLen {
		return NewAPIKey{}, keyInvalid("name", "must be 1..100 characters")
	}
	if len(spec.Scopes) == 0 {
		return NewAPIKey{}, keyInvalid("scopes", "name at least one scope: "+strings.Join(Scopes, ", "))
	}
	scopes := slices.Clone(spec.Scopes)
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	for _, s := range scopes {
		if !slices.Contains(Scopes, s) {
			return NewAPIKey{}, keyInvalid("scopes", "unknown scope "+s+": want "+strings.Join(Scopes, ", "))
		}
	}
	if len(spec.AllowedCIDRs) > MaxKeyCIDRs {
		return NewAPIKey{}, keyInvalid("allowed_cidrs", "at most 32")
	}
	cidrs := []string{}
	for _, c := range spec.AllowedCIDRs {
		p, err := parseCIDR(c)
		if err != nil {
			return NewAPIKey{}, keyInvalid("allowed_cidrs", c+" is neither an address nor a CIDR")
		}
		cidrs = append(cidrs, p.String())
	}
	now := time.Now().UTC()
	if spec.ExpiresAt != nil && !spec.ExpiresAt.After(now) {
		return NewAPIKey{}, keyInvalid("expires_at", "is not in the future")
	}
	tenant := spec.TenantID
	if owner.Role != RoleAdmin {
		if tenant != nil && (owner.TenantID == nil || *tenant != *owner.TenantID) {
			return NewAPIKey{}, apierr.New(apierr.ErrForbidden, "a user's key is for its own tenant only")
		}
		tenant = owner.TenantID
	} else if tenant != nil {
		if err := k.sys.tenantExists(ctx, *tenant); err != nil {
			return NewAPIKey{}, keyInvalid("tenant_id", "no tenant "+*tenant)
		}
	}
	id := persistence.NewID()
	secret := APIKeyPrefix + id + "_" + RandomToken(32)
	rec := keyRecord{APIKey: APIKey{ID: id, Name: name, UserID: owner.ID, Scopes: scopes, TenantID: tenant,
		AllowedCIDRs: cidrs, ExpiresAt: spec.ExpiresAt, CreatedAt: now}, Hash: hashSecret(secret)}
	if rec.ExpiresAt != nil {
		t := rec.ExpiresAt.UTC()
		rec.ExpiresAt = &t
	}
	val, err := persistence.Encode(keyRecordVersion, &rec)
	if err != nil {
		return NewAPIKey{}, err
	}
	b := new(persistence.Batch).Put(keyKey(id), val).Put(keyUserKey(owner.ID, id), nil)
	if err := k.sys.rt.Audit(b, kit.AuditOf(ctx).On("", id, kit.Deref(tenant))); err != nil {
		return NewAPIKey{}, err
	}
	if err := k.sys.store.Commit(ctx, b); err != nil {
		return NewAPIKey{}, err
	}
	return NewAPIKey{APIKey: rec.APIKey, Secret: secret}, nil
}

func parseCIDR(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

func (k *APIKeys) load(ctx context.Context, id string) (*keyRecord, error) {
	rec, err := kit.LoadOptional[keyRecord](ctx, k.sys.store, keyKey(id))
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, errKeyNotFound(id)
	}
	return rec, nil
}

// Get returns a key; scope, when set, is the user whose keys alone may be seen (a
// tenant user's own); another's is not found.
func (k *APIKeys) Get(ctx context.Context, id string, scope *string) (APIKey, error) {
	rec, err := k.load(ctx, id)
	if err != nil {
		return APIKey{}, err
	}
	if scope != nil && rec.UserID != *scope {
		return APIKey{}, errKeyNotFound(id)
	}
	return rec.APIKey, nil
}

// List returns the keys, oldest first: a user's own (scope), or every key.
func (k *APIKeys) List(ctx context.Context, scope *string, cursor string, limit int) ([]APIKey, string, error) {
	if scope == nil {
		return kit.ScanPage(ctx, k.sys.store, persistence.Prefix("apikey"), cursor, limit, func(r *keyRecord) (APIKey, bool) { return r.APIKey, true })
	}
	// The page's records in one read: on a cluster, one request to etcd, not one each.
	return kit.ScanIndexMany(ctx, k.sys.store, persistence.Prefix("apikey-user", *scope), cursor, limit, keyKey, func(_ string, v []byte) (APIKey, bool, error) {
		var rec keyRecord
		if _, err := persistence.Decode(v, &rec); err != nil {
			return APIKey{}, false, err
		}
		return rec.APIKey, true, nil
	})
}

// Revoke deletes a key: the next request made with it is refused, on every member.
func (k *APIKeys) Revoke(ctx context.Context, id string, scope *string) error {
	rec, err := k.load(ctx, id)
	if err != nil {
		return err
	}
	if scope != nil && rec.UserID != *scope {
		return errKeyNotFound(id)
	}
	b := new(persistence.Batch).Del(keyKey(id)).Del(keyUserKey(rec.UserID, id))
	if err := k.sys.rt.Audit(b, kit.AuditOf(ctx).On("", id, kit.Deref(rec.TenantID))); err != nil {
		return err
	}
	return k.sys.store.Commit(ctx, b)
}

var errBadKey = keyRefused("the API key is unknown, revoked or expired")

// Authenticate checks a key's secret, sent from client address addr, and answers who
// the request acts as. Every refusal is 401 unauthorized; the reason is logged.
func (k *APIKeys) Authenticate(ctx context.Context, secret string, addr netip.Addr) (KeyPrincipal, error) {
	rest, ok := strings.CutPrefix(secret, APIKeyPrefix)
	id, _, ok2 := strings.Cut(rest, "_")
	if !ok || !ok2 || len(secret) > 128 {
		return KeyPrincipal{}, errBadKey
	}
	rec, err := k.cache.load(ctx, k.sys, id)
	if err != nil {
		return KeyPrincipal{}, err
	}
	if rec == nil || subtle.ConstantTimeCompare([]byte(rec.Hash), []byte(hashSecret(secret))) != 1 {
		return KeyPrincipal{}, errBadKey
	}
	now := time.Now()
	if rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) {
		return KeyPrincipal{}, errBadKey
	}
	if len(rec.AllowedCIDRs) > 0 {
		allowed := false
		for _, c := range rec.AllowedCIDRs {
			if p, err := netip.ParsePrefix(c); err == nil && p.Contains(addr.Unmap()) {
				allowed = true
				break
			}
		}
		if !allowed {
			k.sys.log.Info("API key used from an address it does not allow", zap.String("key_id", id), zap.String("client", addr.String()))
			return KeyPrincipal{}, keyRefused("the API key does not work from this address")
		}
	}
	// The key acts as its user is now: a disabled or deleted user's key stops, and a
	// user's change of role or tenant carries over.
	usr, err := k.keyUser(ctx, rec.UserID)
	if errors.Is(err, apierr.ErrNotFound) || err == nil && usr.Disabled {
		return KeyPrincipal{}, errBadKey
	}
	if err != nil {
		return KeyPrincipal{}, err
	}
	p := KeyPrincipal{Key: rec.APIKey, User: usr, Role: usr.Role, TenantID: usr.TenantID}
	if rec.TenantID != nil {
		if usr.Role != RoleAdmin && (usr.TenantID == nil || *usr.TenantID != *rec.TenantID) {
			return KeyPrincipal{}, errBadKey // the user moved to another tenant
		}
		// An operator's key made for a tenant acts as that tenant's user would.
		p.Role, p.TenantID = RoleUser, rec.TenantID
	}
	if rec.LastUsedAt == nil || now.Sub(*rec.LastUsedAt) >= KeyUseResolution {
		k.touch(rec, now)
	}
	return p, nil
}

// keyUser is the user a key acts as. On a cluster member it comes from the member's
// copy (fresh.Cache: served while the member's watch is known to have caught up
// within fresh.Window, dropped by the watch of user/ keys) rather than from the
// user's entity, which two times in three is active on another member: every change
// of what a key may do (a disable, a deletion, a role or tenant change: they end the
// user's tokens) is answered only fresh.Fence after it is durable
// (userEntity.publish), by which time every member's copy has dropped the user. On a
// single node the entity is asked, in this process.
func (k *APIKeys) keyUser(ctx context.Context, id string) (User, error) {
	if u, ok := k.owners.Get(id); ok {
		return u, nil
	}
	gen := k.owners.Begin()
	u, err := k.users.Get(ctx, id)
	if err != nil {
		return u, err
	}
	k.owners.Keep(id, u, gen)
	return u, nil
}

// touch records a key's use, off the request: a lost write only makes last_used_at a
// minute older.
func (k *APIKeys) touch(rec *keyRecord, now time.Time) {
	next := *rec
	t := now.UTC().Truncate(time.Second)
	next.LastUsedAt = &t
	val, err := persistence.Encode(keyRecordVersion, &next)
	if err != nil {
		return
	}
	ctx, cancel := k.sys.rt.Work()
	defer cancel()
	// Only over the record as read: a revocation in between must not be undone.
	cur, err := k.sys.store.Get(ctx, keyKey(rec.ID))
	if err != nil {
		return
	}
	old, err := persistence.Encode(keyRecordVersion, rec)
	if err != nil || string(cur) != string(old) {
		return
	}
	b := new(persistence.Batch).Require(persistence.IfValue(keyKey(rec.ID), cur)).Put(keyKey(rec.ID), val)
	if err := k.sys.store.Commit(ctx, b); err != nil && !errors.Is(err, persistence.ErrConditionFailed) {
		k.sys.log.Debug("API key use not recorded", zap.String("key_id", rec.ID), zap.Error(err))
	}
}

// deleteKeysInto puts into b the deletion of every API key of the entity's user.
func (e *userEntity) deleteKeysInto(b *persistence.Batch) error {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	prefix := persistence.Prefix("apikey-user", e.id)
	return e.sys.store.Scan(ctx, prefix, nil, 0, func(key, _ []byte) error {
		// The scan may reuse key's bytes: the batch keeps a copy.
		id := string(key[len(prefix):])
		b.Del(keyUserKey(e.id, id)).Del(keyKey(id))
		return nil
	})
}
