// Package signin holds the ways into an account beside a password, below auth, which
// keeps the users and their sessions: the second factor's codes (TOTP, recovery
// codes), and the single-use records a sign-in leaves in the store, each found by a
// secret token (a login's challenge, a login link, an OpenID Connect sign-in's state, a
// password reset link), with the sender of the reset links' mails. It knows no user
// entity: a record names its user and the user's token generation, auth checks them
// against the user and deletes the record, by the key found here, in the write that
// opens the session or sets the password.
package signin
