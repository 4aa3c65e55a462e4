package auth

import (
	"context"
	"errors"
	"time"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Login links: what a billing panel's "log in to the panel" button does. The billing
// system, signed in as an operator (an API key with the billing scope), asks for a link
// for one of its customers' users; the customer's browser opens it within a minute and
// is signed in, once, without the user's password or second factor: the billing system
// has signed the customer in already, and holds an operator's key. Links are only for
// tenant users, so a billing key never turns into an operator's session.

// MethodLoginLink is the method of a session opened by a login link.
const MethodLoginLink = "login_link"

var (
	errLinkForAdmins = apierr.New(apierr.ErrForbidden, "login links sign in tenant users only: an operator signs in with a password")
	errLinkDisabled  = apierr.New(apierr.ErrConflict, "the user is disabled")
)

// redeemLink opens a session for the login link under Key, made at generation Gen.
type redeemLink struct {
	Key  []byte
	Gen  uint64
	From Client
	TTL  time.Duration
	// Required: the user must have a second factor; without one the session is
	// restricted to enrolling it (the link vouches for the user, not for a factor).
	Required bool
}

// CreateLoginLink makes a single-use login link for the tenant user userID, valid for
// signin.LoginLinkTTL. An unknown user is 404, an operator 403, a disabled user 409.
func (u *Users) CreateLoginLink(ctx context.Context, userID string) (signin.LoginLink, error) {
	cred, err := kit.Ask[credentials](ctx, u.kind, userID, &getCredentials{})
	if err != nil {
		return signin.LoginLink{}, err
	}
	switch {
	case cred.User.Role == RoleAdmin || cred.User.TenantID == nil:
		return signin.LoginLink{}, errLinkForAdmins
	case cred.User.Disabled:
		return signin.LoginLink{}, errLinkDisabled
	}
	b := new(persistence.Batch)
	link, err := signin.PutLink(b, signin.Link{UserID: cred.User.ID, Email: cred.User.Email, Gen: cred.Gen})
	if err != nil {
		return signin.LoginLink{}, err
	}
	if err := u.sys.rt.Audit(b, kit.AuditOf(ctx).On("", cred.User.ID, kit.Deref(cred.User.TenantID))); err != nil {
		return signin.LoginLink{}, err
	}
	if err := u.sys.store.Commit(ctx, b); err != nil {
		return signin.LoginLink{}, err
	}
	return link, nil
}

// LoginLinkEmail is the e-mail of the user a live login link signs in, whose login
// limits its use runs under; an unknown, used or expired link is a 401.
func (u *Users) LoginLinkEmail(ctx context.Context, token string) (string, error) {
	rec, _, err := u.signins.LoadLink(ctx, token)
	if err != nil {
		return "", err
	}
	return rec.Email, nil
}

// RedeemLoginLink spends a login link and opens a session for its user, from from.
// The link's end and the session are one write, so a link signs in once even when two
// browsers race with it; a link of a user changed since it was made is refused.
func (u *Users) RedeemLoginLink(ctx context.Context, token string, from Client) (Session, error) {
	rec, key, err := u.signins.LoadLink(ctx, token)
	if err != nil {
		return Session{}, err
	}
	from.Agent = clip(from.Agent, maxAgentLen)
	usr, err := u.Get(ctx, rec.UserID)
	if errors.Is(err, apierr.ErrNotFound) {
		return Session{}, signin.ErrBadLink
	}
	if err != nil {
		return Session{}, err
	}
	required, err := u.totpRequired(ctx, usr)
	if err != nil {
		return Session{}, err
	}
	sess, err := kit.Ask[Session](ctx, u.kind, rec.UserID, &redeemLink{Key: key, Gen: rec.Gen, From: from, TTL: u.opts.RefreshTTL, Required: required})
	if errors.Is(err, apierr.ErrNotFound) {
		return Session{}, signin.ErrBadLink // the user was deleted
	}
	return sess, err
}

func (e *userEntity) redeemLink(ctx *kit.Ctx, m *redeemLink) {
	if e.rec.Disabled || e.rec.TokenGen != m.Gen {
		ctx.Fail(signin.ErrBadLink)
		return
	}
	// The link may have been spent by a racing redeem whose write landed after this
	// one's read: the entity serialises them, and the second finds the key gone.
	rctx, cancel := e.sys.rt.Work()
	_, err := e.sys.store.Get(rctx, m.Key)
	cancel()
	if err != nil {
		if errors.Is(err, persistence.ErrNotFound) {
			err = signin.ErrBadLink
		}
		ctx.Fail(err)
		return
	}
	restricted := m.Required && (e.rec.TOTP == nil || !e.rec.TOTP.Confirmed)
	f, err := e.openInto(new(persistence.Batch).Del(m.Key), m.TTL, m.From, MethodLoginLink, restricted)
	if err != nil {
		ctx.Fail(err)
		return
	}
	ctx.Respond(e.session(f))
}
