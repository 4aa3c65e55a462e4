package auth

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster a user's entity (and its idempotency keys') may be active on another
// member than the one that serves the request: every message asked through the Kinds,
// and every answer, travels as JSON (kit.Wire). TestWire checks that each crosses
// whole. createUser is not here: it goes to the users supervisor itself
// (kit.AskRef, Kind.Ref), so it never leaves its member.
func init() {
	// Messages of a user entity.
	kit.Wire("auth.getUser", 1, (*getUser)(nil))
	kit.Wire("auth.getCredentials", 1, (*getCredentials)(nil))
	kit.Wire("auth.getAuth", 1, (*getAuth)(nil))
	kit.Wire("auth.openFamily", 1, (*openFamily)(nil))
	kit.Wire("auth.rotateToken", 1, (*rotateToken)(nil))
	kit.Wire("auth.revokeFamily", 1, (*revokeFamily)(nil))
	kit.Wire("auth.updateUser", 1, (*updateUser)(nil))
	kit.Wire("auth.deleteUser", 1, (*deleteUser)(nil))
	kit.Wire("auth.listSessions", 1, (*listSessions)(nil))
	kit.Wire("auth.endSession", 1, (*endSession)(nil))
	kit.Wire("auth.changePassword", 1, (*changePassword)(nil))
	kit.Wire("auth.resetPassword", 1, (*resetPassword)(nil))
	kit.Wire("auth.enrolTOTP", 1, (*enrolTOTP)(nil))
	kit.Wire("auth.confirmTOTP", 1, (*confirmTOTP)(nil))
	kit.Wire("auth.disableTOTP", 1, (*disableTOTP)(nil))
	kit.Wire("auth.totpLogin", 1, (*totpLogin)(nil))
	kit.Wire("auth.redeemLink", 1, (*redeemLink)(nil))
	// Its answers.
	kit.Wire("auth.User", 1, User{})
	kit.Wire("auth.credentials", 1, credentials{})
	kit.Wire("auth.authState", 1, (*authState)(nil))
	kit.Wire("auth.Session", 1, Session{})
	kit.Wire("auth.revoked", 1, revoked{})
	kit.Wire("auth.sessionList", 1, sessionList{})
	kit.Wire("auth.totpDone", 1, totpDone{})
	// Messages of a user's idempotency entity, and its answers.
	kit.Wire("auth.claimKey", 1, (*claimKey)(nil))
	kit.Wire("auth.completeKey", 1, (*completeKey)(nil))
	kit.Wire("auth.claimed", 1, Claimed{})
}
