package auth

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster a user's entity (and its idempotency keys') may be active on another
// member than the one that serves the request: every message asked through the Kinds,
// and every answer, travels as JSON (kit.Wire). TestWire checks that each crosses
// whole. createUser is not here: it goes to the users supervisor's own PID
// (kit.AskPID), so it never leaves its member.
func init() {
	kit.Wire(
		// Messages of a user entity.
		(*getUser)(nil), (*getCredentials)(nil), (*getAuth)(nil), (*openFamily)(nil),
		(*rotateToken)(nil), (*revokeFamily)(nil), (*updateUser)(nil), (*deleteUser)(nil),
		// Its answers.
		User{}, credentials{}, (*authState)(nil), Session{}, revoked{},
		// Messages of a user's idempotency entity, and its answers.
		(*claimKey)(nil), (*completeKey)(nil),
		Claimed{}, kit.Done{},
	)
}
