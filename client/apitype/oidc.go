package apitype

// OIDCProvider is an OpenID Connect provider users may sign in with.
type OIDCProvider struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}
