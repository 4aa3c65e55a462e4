package signin

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: the single-use records of the
// sign-ins, each under the SHA-256 of its token and with a TTL. auth deletes them, by
// the key found here, in the write that uses them.
var Keys = []persistence.KeyKind{
	{Prefix: "pwreset", Holds: "pwreset/<SHA-256 of the token>: a password reset link, until it is used or expires (TTL)"},
	{Prefix: "totp-challenge", Holds: "totp-challenge/<SHA-256 of the challenge>: a login whose password was right, waiting for its second factor's code (TTL)"},
	{Prefix: "loginlink", Holds: "loginlink/<SHA-256 of the token>: a login link a billing system made for a tenant user, until it is used or expires (TTL)"},
	{Prefix: "oidc-state", Holds: "oidc-state/<SHA-256 of the state>: an OpenID Connect sign-in waiting for its callback: nonce, PKCE verifier, the SHA-256 of the secret that binds it to its starter (TTL)"},
}
