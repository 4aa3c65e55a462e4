package sso

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/vmplane/vmplane/apierr"
)

// Info is a provider as a login page lists it.
type Info struct {
	ID, Name string
}

// Providers are the configured providers, by id.
type Providers struct {
	byID map[string]*Provider
	list []Info
}

// New makes the providers of cfgs. client is the HTTP client every call to a
// provider goes through (nil: one with a 15 s timeout). No provider is asked
// anything yet: each reads its discovery document at its first sign-in, and again
// after a failure, so that a provider down at start does not keep vmplane down.
func New(cfgs []Config, client *http.Client) *Providers {
	if client == nil {
		client = &http.Client{Timeout: 15 * time.Second}
	}
	ps := &Providers{byID: map[string]*Provider{}}
	for _, c := range cfgs {
		ps.byID[c.ID] = &Provider{cfg: c, client: client}
		ps.list = append(ps.list, Info{ID: c.ID, Name: c.Name})
	}
	sort.Slice(ps.list, func(i, j int) bool { return ps.list[i].ID < ps.list[j].ID })
	return ps
}

// List is every provider, by id.
func (ps *Providers) List() []Info {
	if ps == nil {
		return []Info{}
	}
	return append([]Info{}, ps.list...)
}

// Get is the provider id, or a 404.
func (ps *Providers) Get(id string) (*Provider, error) {
	if ps != nil {
		if p, ok := ps.byID[id]; ok {
			return p, nil
		}
	}
	return nil, apierr.NotFound("OpenID Connect provider", id)
}

// Provider is one configured provider.
type Provider struct {
	cfg    Config
	client *http.Client

	mu       sync.Mutex
	op       *oidc.Provider // nil until discovered
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
}

// ID is the provider's id.
func (p *Provider) ID() string { return p.cfg.ID }

// HTTPS says whether the provider sends browsers back to an https:// URL (a cookie
// for the callback is then Secure).
func (p *Provider) HTTPS() bool { return strings.HasPrefix(p.cfg.RedirectURL, "https://") }

// discovered reads the provider's discovery document once it succeeds.
func (p *Provider) discovered(ctx context.Context) (*oidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.op != nil {
		return p.op, nil
	}
	op, err := oidc.NewProvider(oidc.ClientContext(ctx, p.client), p.cfg.Issuer)
	if err != nil {
		return nil, apierr.New(apierr.ErrUnavailable, "the OpenID Connect provider %s cannot be reached: %v", p.cfg.ID, err)
	}
	p.op = op
	p.oauth = oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: op.Endpoint(),
		RedirectURL: p.cfg.RedirectURL, Scopes: p.cfg.Scopes}
	p.verifier = op.Verifier(&oidc.Config{ClientID: p.cfg.ClientID})
	return op, nil
}

// Secrets are what one sign-in keeps between its start and its callback.
type Secrets struct {
	// State ties the callback to the start (the key of the stored sign-in).
	State string
	// Nonce ties the ID token to the sign-in.
	Nonce string
	// Verifier is the PKCE code verifier, whose S256 challenge the start sends.
	Verifier string
}

// NewVerifier is a fresh PKCE code verifier.
func NewVerifier() string { return oauth2.GenerateVerifier() }

// AuthURL is where a sign-in sends the browser: the provider's authorization
// endpoint, asking for a code for vmplane's client with s's state, nonce and the
// S256 challenge of its verifier.
func (p *Provider) AuthURL(ctx context.Context, s Secrets) (string, error) {
	if _, err := p.discovered(ctx); err != nil {
		return "", err
	}
	return p.oauth.AuthCodeURL(s.State, oidc.Nonce(s.Nonce), oauth2.S256ChallengeOption(s.Verifier)), nil
}

// Identity is who a provider signed in, and where its claims place the user.
type Identity struct {
	// Subject is the provider's id of the user (sub).
	Subject string
	// Email is the verified e-mail address.
	Email string
	// Name is the user's name, when the provider tells it.
	Name string
	// Mapped says the provider places users by a claim (tenant_claim): Operator or
	// TenantID says where this one goes, and neither that its claim maps nowhere.
	Mapped   bool
	Operator bool
	TenantID string
	// Create says the provider may create the user on its first sign-in.
	Create bool
}

// failed is a 401 oidc_login_failed, with what failed.
func failed(format string, args ...any) error {
	return apierr.New(apierr.ErrOIDCLoginFailed, format, args...)
}

// Exchange completes a sign-in: it trades code (with the PKCE verifier) for the
// provider's tokens, checks the ID token (signature, issuer, audience = the client
// id, expiry, and nonce) and reads the identity from its claims, and from the
// provider's userinfo endpoint for those the ID token leaves out.
func (p *Provider) Exchange(ctx context.Context, code, verifier, nonce string) (Identity, error) {
	if _, err := p.discovered(ctx); err != nil {
		return Identity{}, err
	}
	ctx = oidc.ClientContext(ctx, p.client)
	tok, err := p.oauth.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return Identity{}, failed("the provider refused the code: %s %s", re.ErrorCode, re.ErrorDescription)
		}
		return Identity{}, failed("the code could not be exchanged: %v", err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return Identity{}, failed("the provider answered no ID token")
	}
	idt, err := p.verifier.Verify(ctx, raw)
	if err != nil {
		return Identity{}, failed("the ID token is not for this server: %v", err)
	}
	if idt.Nonce != nonce {
		return Identity{}, failed("the ID token's nonce is not this sign-in's")
	}
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		return Identity{}, failed("the ID token's claims: %v", err)
	}
	if _, ok := claims[p.cfg.EmailClaim]; !ok || (p.cfg.TenantClaim != "" && claims[p.cfg.TenantClaim] == nil) {
		// Many providers put only the subject in the ID token: the rest is the
		// userinfo endpoint's, for the same subject.
		if err := p.userinfo(ctx, tok, idt.Subject, claims); err != nil {
			return Identity{}, err
		}
	}
	return p.identity(idt.Subject, claims)
}

// userinfo adds to claims those of the userinfo endpoint that claims lacks.
func (p *Provider) userinfo(ctx context.Context, tok *oauth2.Token, subject string, claims map[string]any) error {
	p.mu.Lock()
	op := p.op
	p.mu.Unlock()
	if op.UserInfoEndpoint() == "" {
		return nil
	}
	ui, err := op.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return failed("the provider's userinfo: %v", err)
	}
	if ui.Subject != subject {
		return failed("the provider's userinfo is of another subject than its ID token")
	}
	more := map[string]any{}
	if err := ui.Claims(&more); err != nil {
		return failed("the provider's userinfo: %v", err)
	}
	for k, v := range more {
		if _, ok := claims[k]; !ok {
			claims[k] = v
		}
	}
	return nil
}

// identity reads an Identity from verified claims.
func (p *Provider) identity(subject string, claims map[string]any) (Identity, error) {
	id := Identity{Subject: subject, Create: p.cfg.CreateUsers}
	email, _ := claims[p.cfg.EmailClaim].(string)
	if email == "" {
		return id, failed("the provider tells no e-mail (claim %s): ask for the email scope", p.cfg.EmailClaim)
	}
	if v, _ := claims["email_verified"].(bool); !v && !p.cfg.AllowUnverifiedEmail {
		return id, failed("the provider has not verified the e-mail %s", email)
	}
	id.Email = email
	id.Name, _ = claims["name"].(string)
	if p.cfg.TenantClaim == "" {
		return id, nil
	}
	id.Mapped = true
	var values []string
	switch v := claims[p.cfg.TenantClaim].(type) {
	case string:
		values = []string{v}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				values = append(values, s)
			}
		}
	}
	var to []string
	for _, v := range values {
		if t, ok := p.cfg.TenantMap[v]; ok && !slices.Contains(to, t) {
			to = append(to, t)
		}
	}
	switch {
	case len(to) > 1:
		return id, apierr.New(apierr.ErrOIDCNotMapped, "the claim %s of %s maps to %s at once: the provider must place a user in one", p.cfg.TenantClaim, email, strings.Join(to, " and "))
	case len(to) == 1 && to[0] == Operator:
		id.Operator = true
	case len(to) == 1:
		id.TenantID = to[0]
	}
	return id, nil
}
