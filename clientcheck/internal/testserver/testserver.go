// Package testserver starts a real vmplane server in-process, on an ephemeral loopback
// port over a Badger store in a directory the caller owns, with a simulated cluster: the
// server the generated client is checked against.
package testserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/app"
)

// Credentials of the first operator (admin) of a test server.
const (
	AdminEmail    = "admin@example.test"
	AdminPassword = "correct horse battery staple"
)

// Server is a running vmplane server.
type Server struct {
	// Base is the server's base URL, http://127.0.0.1:port.
	Base string
	app  *app.App
}

// Start starts a server over a store in dir with a small, fast simulated cluster and no
// rate limits (a test's requests come quickly from one address).
func Start(dir string) (*Server, error) {
	cfg := app.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = dir
	cfg.AdminEmail = AdminEmail
	cfg.AdminPassword = AdminPassword
	cfg.JWTKey = "0123456789abcdef0123456789abcdef-clientcheck-key"
	cfg.BcryptCost = 4 // the minimum: hashing speed is not what is tested here
	cfg.RateGlobal, cfg.RateGlobalBurst = 0, 0
	cfg.RateAuth, cfg.RateAuthBurst = 0, 0
	cfg.RateLogin, cfg.RateLoginBurst = 0, 0
	cfg.RateLoginAddr, cfg.RateLoginAddrBurst = 0, 0
	cfg.SimOpDelay = time.Millisecond
	cfg.SimMachines = 4
	cfg.StoreCacheMB = 8
	a, err := app.Start(cfg, zap.NewNop(), nil)
	if err != nil {
		return nil, fmt.Errorf("start vmplane: %w", err)
	}
	return &Server{Base: "http://" + a.Addr(), app: a}, nil
}

// Document fetches the OpenAPI document the server serves at GET /api/openapi.json.
func (s *Server) Document() ([]byte, error) {
	c := &http.Client{Timeout: 30 * time.Second}
	res, err := c.Get(s.Base + "/api/openapi.json")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /api/openapi.json: %s: %s", res.Status, body)
	}
	return body, nil
}

// Stop shuts the server down gracefully.
func (s *Server) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.app.Shutdown(ctx)
}
