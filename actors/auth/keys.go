package auth

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: users, their refresh-token
// families, API keys and the answers of idempotent requests (the sign-ins' single-use
// records are signin's).
var Keys = []persistence.KeyKind{
	{Prefix: "user", Holds: "user/<id>: a user"},
	{Prefix: "user-email", Holds: "user-email/<normalised e-mail>: the user of an e-mail address"},
	{Prefix: "user-ext", Holds: "user-ext/<external id>: the user another system knows by that id"},
	{Prefix: "user-tenant", Holds: "user-tenant/<tenant>/<user>: a tenant's users"},
	{Prefix: "refresh", Holds: "refresh/<user>/<family>: a refresh-token family (rotation and reuse detection)"},
	{Prefix: "apikey", Holds: "apikey/<id>: an API key (its secret's SHA-256, never the secret)"},
	{Prefix: "apikey-user", Holds: "apikey-user/<user>/<key>: a user's API keys"},
	{Prefix: "idem", Holds: "idem/<user>/<key>: the claim and then the answer of a request made with an Idempotency-Key"},
	{Prefix: "meta/admin", Holds: "the id of the first admin, created at the first start"},
	{Prefix: "meta/admin-initial-password", Holds: "the first admin's generated password, until the server has shown it"},
}
