package auth

import (
	"context"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/fresh"
	"github.com/vmplane/vmplane/persistence"
)

// Deps are what users and idempotency records need from outside their package.
type Deps struct {
	Runtime *kit.Runtime
	Options AuthOptions
	// TenantExists answers nil for a tenant that exists, and the tenants' error (not
	// found, unavailable) otherwise: a user is assigned only to a tenant that exists.
	TenantExists func(ctx context.Context, id string) error
	// TenantRequiresTOTP says whether a tenant requires its users to have a second
	// factor (nil: none does).
	TenantRequiresTOTP func(ctx context.Context, id string) (bool, error)
}

// Services are the services of the auth package.
type Services struct {
	Users       *Users
	Idempotency *Idempotency
	APIKeys     *APIKeys
}

// system is what the auth code reaches through its sys field.
type system struct {
	rt           *kit.Runtime
	store        persistence.Store
	log          *zap.Logger
	tenantExists func(ctx context.Context, id string) error
	// tenantRequiresTOTP is Deps.TenantRequiresTOTP (nil: none does).
	tenantRequiresTOTP func(ctx context.Context, id string) (bool, error)
}

// Start starts the users' and the idempotency records' kinds.
func Start(d Deps) (*Services, error) {
	s := &system{rt: d.Runtime, store: d.Runtime.Store, log: d.Runtime.Log, tenantExists: d.TenantExists, tenantRequiresTOTP: d.TenantRequiresTOTP}
	users, err := startUsers(s, d.Options)
	if err != nil {
		return nil, err
	}
	return &Services{Users: users, Idempotency: startIdempotency(s), APIKeys: &APIKeys{sys: s, users: users, cache: newKeyCache(s),
		owners: fresh.New[User](s.store, maxStanding, "user")}}, nil
}
