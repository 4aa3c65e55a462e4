package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A user's own account: the logins (sessions) it holds, and its password. A session is
// a refresh-token family (family); it records where it was opened from, so that its
// user can tell one login from another and end those it does not know.

// Client is where a login comes from, as the edge saw it: recorded with the session
// (and with a login's challenge, hence signin's).
type Client = signin.Client

// maxAgentLen bounds the user agent a session records: a header is the client's to
// fill, the store's space is not.
const maxAgentLen = 256

// How a session was opened (SessionInfo.Method).
const (
	MethodPassword = "password"
)

// SessionInfo is one login of a user as the user sees it: never its tokens.
type SessionInfo struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	// LastUsedAt is the last time the session signed in or renewed its tokens (a
	// refresh); its access tokens' uses in between are not recorded.
	LastUsedAt time.Time `json:"last_used_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	ClientAddr string    `json:"client_address"`
	UserAgent  string    `json:"user_agent"`
	Method     string    `json:"method" openapi:"enum=password|totp|recovery_code|login_link|oidc"`
	// Current is the session of the token that asks.
	Current bool `json:"current"`
}

// Messages of a user entity about its sessions and password, and an answer.
type (
	listSessions struct{}
	sessionList  struct{ Sessions []SessionInfo }
	endSession   struct{ ID string }
	// changePassword sets a new password hash (checked against generation Gen: no
	// other change came between the check of the current password and here) and ends
	// every session but Keep, whose token pair it answers with.
	changePassword struct {
		Hash string
		Gen  uint64
		Keep string
	}
)

// Sessions lists the user's sessions that have not ended, newest first, a page of at
// most limit after cursor (the last id of the page before, "" for the first); current
// (the asking token's session) is marked. next is the cursor of the next page, "" at
// the end.
func (u *Users) Sessions(ctx context.Context, userID, current, cursor string, limit int) (_ []SessionInfo, next string, _ error) {
	l, err := kit.Ask[sessionList](ctx, u.kind, userID, &listSessions{})
	if err != nil {
		return nil, "", err
	}
	all := l.Sessions // newest first: ids are ULIDs, which sort by creation
	if cursor != "" {
		i, _ := slices.BinarySearchFunc(all, cursor, func(s SessionInfo, c string) int { return -strings.Compare(s.ID, c) })
		for i < len(all) && all[i].ID >= cursor {
			i++
		}
		all = all[i:]
	}
	if len(all) > limit {
		all, next = all[:limit], all[limit-1].ID
	}
	for i := range all {
		all[i].Current = all[i].ID == current
	}
	return all, next, nil
}

// EndSession ends one of the user's sessions: its refresh tokens and, at once, its
// access tokens. One that has ended already, or is not the user's, is not found.
func (u *Users) EndSession(ctx context.Context, userID, id string) error {
	_, err := kit.Ask[revoked](ctx, u.kind, userID, &endSession{ID: id})
	return err
}

// ChangePassword sets the user's password after checking the current one, and ends
// every session of the user but the asking one (sessionID), which stays: it answers
// that session with a new access token, since the change moves the user's token
// generation on (every access token issued before ends).
//
// A wrong current password is ErrWrongPassword.
func (u *Users) ChangePassword(ctx context.Context, userID, sessionID, current, next string) (Session, error) {
	if len(next) < MinPasswordLen || len(next) > MaxPasswordLen {
		return Session{}, apierr.Invalid(apierr.Field("new_password", "must be %d..%d characters", MinPasswordLen, MaxPasswordLen))
	}
	cred, err := kit.Ask[credentials](ctx, u.kind, userID, &getCredentials{})
	if err != nil {
		return Session{}, err
	}
	match, err := u.hasher.compare(ctx, []byte(cred.Hash), current)
	if err != nil {
		return Session{}, err
	}
	if !match {
		return Session{}, fmt.Errorf("%w: %w", apierr.Invalid(apierr.Field("current_password", "is not the user's password")), ErrWrongPassword)
	}
	h, err := u.hasher.generate(ctx, next, u.opts.BcryptCost)
	if err != nil {
		return Session{}, err
	}
	sess, err := kit.Ask[Session](ctx, u.kind, userID, &changePassword{Hash: string(h), Gen: cred.Gen, Keep: sessionID})
	if err == nil && u.opts.PasswordChanged != nil {
		u.opts.PasswordChanged(userID)
	}
	return sess, err
}

// ErrWrongPassword is in the error of a password change whose current password is
// not the user's: a 400 naming current_password (not a 401: the asking token is
// fine), which the edge counts as a failed login against the login limits.
var ErrWrongPassword = errors.New("wrong current password")

// MaxSessions is how many sessions a user holds at most: a new login beyond it ends
// the oldest. Without a bound, a script that signs in for every call would pile up
// logins (each kept in the user's actor) until they expire.
const MaxSessions = 100

// dropped are the logins a new one at now drops: those that ended, and the oldest
// live ones beyond MaxSessions-1 (the new one makes MaxSessions).
func (e *userEntity) dropped(now time.Time) []string {
	var out, live []string
	for id, f := range e.families {
		if f.live(now) {
			live = append(live, id)
		} else {
			out = append(out, id)
		}
	}
	if over := len(live) - (MaxSessions - 1); over > 0 {
		slices.Sort(live) // ids are ULIDs: oldest first
		out = append(out, live[:over]...)
	}
	return out
}

// live reports whether a family is a session that has not ended.
func (f *family) live(now time.Time) bool { return !f.Revoked && now.Before(f.ExpiresAt) }

func (f *family) info() SessionInfo {
	used := f.LastUsedAt
	if used.IsZero() {
		used = f.CreatedAt
	}
	method := f.Method
	if method == "" {
		method = MethodPassword // sessions opened before methods were recorded
	}
	return SessionInfo{ID: f.ID, CreatedAt: f.CreatedAt, LastUsedAt: used, ExpiresAt: f.ExpiresAt,
		ClientAddr: f.ClientAddr, UserAgent: f.UserAgent, Method: method}
}

func (e *userEntity) listSessions(ctx *kit.Ctx) {
	now := time.Now()
	out := []SessionInfo{}
	for _, f := range e.families {
		if f.live(now) {
			out = append(out, f.info())
		}
	}
	slices.SortFunc(out, func(a, b SessionInfo) int { return strings.Compare(b.ID, a.ID) })
	ctx.Respond(sessionList{Sessions: out})
}

func (e *userEntity) endSession(ctx *kit.Ctx, m *endSession) {
	f, ok := e.families[m.ID]
	if !ok || !f.live(time.Now()) {
		ctx.Fail(apierr.NotFound("session", m.ID))
		return
	}
	if err := e.revoke(f); err != nil {
		ctx.Fail(err)
		return
	}
	ctx.Respond(revoked{})
}

func (e *userEntity) changePassword(ctx *kit.Ctx, m *changePassword) {
	keep, ok := e.families[m.Keep]
	switch {
	case !ok || !keep.live(time.Now()):
		// The asking session ended meanwhile: its token is no longer good.
		ctx.Fail(errSessionEnded)
		return
	case e.rec.TokenGen != m.Gen:
		// Another change (a password, a role) came between the check of the current
		// password and here: the check may have been against the old password.
		ctx.Fail(apierr.New(apierr.ErrConflict, "the user changed while the password was checked; try again"))
		return
	}
	next := *e.rec
	next.PasswordHash = m.Hash
	next.TokenGen++
	b := new(persistence.Batch)
	ended, err := e.revokeInto(b, keep.ID)
	if err == nil {
		err = e.commitUser(b, next, ended)
	}
	if err != nil {
		ctx.Fail(err)
		return
	}
	ctx.Respond(e.session(keep))
}

// clip bounds a client-given string a record keeps.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
