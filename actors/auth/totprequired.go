package auth

import (
	"context"

	"github.com/vmplane/vmplane/apierr"
)

// A second factor the operator requires: of every operator (AuthOptions.
// RequireOperatorTOTP), or of a tenant's users (the tenant's require_totp). A user who
// must have one and has none still signs in, so that it can enrol one, but its login
// is restricted: Authorize answers errEnrolFirst, and the edge lets such a login call
// only the routes of its own account (enrol and confirm the factor, read itself, its
// sessions, log out). The first code it confirms lifts the restriction of that login.
// The requirement is looked up at each sign-in and each renewal of a login, so one
// turned on reaches the logins open already within an access token's lifetime. API
// keys are not affected: a program has no phone.

var (
	errEnrolFirst = apierr.New(apierr.ErrTOTPEnrolmentRequired,
		"a second factor is required of this account: enrol one (POST /api/auth/totp, then /api/auth/totp/confirm) before anything else")
	errTOTPKept = apierr.New(apierr.ErrForbidden, "a second factor is required of this account: it cannot be turned off")
)

// totpRequired says whether u must have a second factor.
func (u *Users) totpRequired(ctx context.Context, usr User) (bool, error) {
	switch {
	case usr.Role == RoleAdmin:
		return u.opts.RequireOperatorTOTP, nil
	case usr.TenantID == nil || u.sys.tenantRequiresTOTP == nil:
		return false, nil
	}
	return u.sys.tenantRequiresTOTP(ctx, *usr.TenantID)
}

// restrictOnRenewal is whether a login stays, or becomes, restricted when it is
// renewed: required says its user must have a second factor now, has whether it has.
// A login required but whose user enrolled since (through another login) stays as it
// was: it never gave a code. One no longer required is free.
func restrictOnRenewal(was, required, has bool) bool {
	switch {
	case !required:
		return false
	case !has:
		return true
	}
	return was
}
