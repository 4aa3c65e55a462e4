package proxmox

import (
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	pve "github.com/luthermonson/go-proxmox"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvehttp"
)

// Interface guard: the Proxmox driver must stay a full Driver.
var _ hypervisor.Driver = (*Driver)(nil)

// Defaults of a Config.
const (
	DefaultRequestTimeout   = 15 * time.Second
	DefaultTaskPollInterval = time.Second
	DefaultStorage          = "local-lvm"
	DefaultBridge           = "vmbr0"
	DefaultBackupStorage    = "local"
	DefaultISOStorage       = "local"
)

// Config configures the driver. URL, TokenID and TokenSecret are required.
//
// TLS verification is on by default against the system roots. CAFile replaces them
// with the cluster's own CA (Proxmox's /etc/pve/pve-root-ca.pem); Fingerprint pins the
// leaf certificate instead of checking any chain (what the Proxmox GUI shows as the
// node's "Fingerprint", SHA-256); InsecureSkipVerify turns verification off (labs
// only). When several are set, Fingerprint wins over InsecureSkipVerify, which wins
// over CAFile.
type Config struct {
	// URL is the API base, https://host:8006/api2/json (a bare https://host:8006 gets
	// /api2/json appended).
	URL string
	// TokenID is the API token, user@realm!name.
	TokenID string
	// TokenSecret is the token's secret (a UUID). It never appears in logs or errors.
	TokenSecret string
	// InsecureSkipVerify disables TLS certificate verification.
	InsecureSkipVerify bool
	// CAFile is a PEM bundle of CAs to verify the server with instead of the system roots.
	CAFile string
	// Fingerprint pins the server certificate by its SHA-256 fingerprint, hex with or
	// without colons.
	Fingerprint string
	// RequestTimeout bounds each HTTP request, each retry on its own (default 15s).
	RequestTimeout time.Duration
	// TaskPollInterval is how often a task's status is polled (default 1s).
	TaskPollInterval time.Duration
	// DefaultStorage is where AddDisk puts disks when the caller names no storage
	// (default local-lvm).
	DefaultStorage string
	// DefaultBridge is the bridge of net0 when a template has no network interface
	// (default vmbr0).
	DefaultBridge string
	// BackupStorage is the storage vzdump writes to (default local). A shared storage
	// (NFS, PBS) lets backups follow machines that migrate and be restored anywhere.
	BackupStorage string
	// ISOStorage is the storage ISO images are fetched into (default local); a shared
	// one holds each image once for every node.
	ISOStorage string
	// ConsoleUser and ConsolePassword are an optional pve-realm user (user@pve) that
	// holds only VM.Console. Proxmox refuses API tokens on the console websocket, so
	// Console logs in as this user; without it Console is unavailable. See the package
	// documentation for the setup.
	ConsoleUser     string
	ConsolePassword string
	// ConsolePing is how often an open console shows pveproxy it is alive, however
	// idle its user is (default 30s): termproxy's ping frame on a serial console, a
	// websocket ping on a display, whose RFB stream has nothing of its own for that.
	ConsolePing time.Duration
	// Logger receives request and task logs (default: no logging).
	Logger *zap.Logger
}

// String describes the config without its secrets, so that logging a Config by
// accident (%v, %+v) cannot leak them.
func (c Config) String() string {
	redact := func(s string) string {
		if s == "" {
			return ""
		}
		return "[redacted]"
	}
	return fmt.Sprintf("proxmox.Config{URL:%q TokenID:%q TokenSecret:%s InsecureSkipVerify:%t CAFile:%q Fingerprint:%q RequestTimeout:%s TaskPollInterval:%s DefaultStorage:%q DefaultBridge:%q BackupStorage:%q ISOStorage:%q ConsoleUser:%q ConsolePassword:%s ConsolePing:%s}",
		c.URL, c.TokenID, redact(c.TokenSecret), c.InsecureSkipVerify, c.CAFile, c.Fingerprint, c.RequestTimeout,
		c.TaskPollInterval, c.DefaultStorage, c.DefaultBridge, c.BackupStorage, c.ISOStorage, c.ConsoleUser, redact(c.ConsolePassword), c.ConsolePing)
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

// Driver is the Proxmox VE driver. All methods are safe for concurrent use.
type Driver struct {
	cfg     Config
	log     *zap.Logger
	base    *url.URL // .../api2/json
	tls     *tls.Config
	tr      *pvehttp.Transport
	hc      *http.Client
	api     *pve.Client // API-token client: the HTTP and auth layer of every call
	secrets []string    // values scrubbed from every error and log line
	// createMu serialises picking a vmid and starting its clone (see startCreateClone).
	createMu sync.Mutex
}

// New validates cfg and builds a driver. It does not contact Proxmox: call Ping for that.
func New(cfg Config) (*Driver, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	base, err := parseBaseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	tc, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	log = log.Named("proxmox")
	if cfg.InsecureSkipVerify && cfg.Fingerprint == "" {
		log.Warn("TLS certificate verification is disabled (InsecureSkipVerify); use CAFile or Fingerprint in production")
	}
	d := &Driver{cfg: cfg, log: log, base: base, tls: tc}
	d.secrets = []string{cfg.TokenSecret}
	if cfg.ConsolePassword != "" {
		d.secrets = append(d.secrets, cfg.ConsolePassword)
	}
	d.tr = pvehttp.New(&http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: min(cfg.RequestTimeout, 10*time.Second), KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tc,
		TLSHandshakeTimeout:   min(cfg.RequestTimeout, 10*time.Second),
		ExpectContinueTimeout: time.Second,
		// pveproxy speaks HTTP/1.1; a small pool bounds the load one vmplane puts on it.
		MaxIdleConns:        16,
		MaxIdleConnsPerHost: 8,
		MaxConnsPerHost:     32,
		IdleConnTimeout:     90 * time.Second,
	}, base.Path, cfg.RequestTimeout, log, d.scrub)
	d.hc = &http.Client{Transport: d.tr}
	d.api = pve.NewClient(base.String(),
		pve.WithHTTPClient(d.hc),
		pve.WithAPIToken(cfg.TokenID, cfg.TokenSecret),
		pve.WithUserAgent("vmplane-proxmox"),
		pve.WithLogger(quietLogger{}),
	)
	return d, nil
}

// Close releases idle connections. The driver must not be used afterwards.
func (d *Driver) Close() error {
	d.hc.CloseIdleConnections()
	return nil
}

// Name is the driver's config name and route segment.
func (d *Driver) Name() string { return "proxmox" }

// fill checks the required fields and applies defaults.
func (c *Config) fill() error {
	var missing []string
	if strings.TrimSpace(c.URL) == "" {
		missing = append(missing, "URL (e.g. https://pve1.example.com:8006/api2/json)")
	}
	if strings.TrimSpace(c.TokenID) == "" {
		missing = append(missing, "TokenID (user@realm!tokenname)")
	}
	if c.TokenSecret == "" {
		missing = append(missing, "TokenSecret")
	}
	if len(missing) > 0 {
		return fmt.Errorf("proxmox: missing %s", strings.Join(missing, ", "))
	}
	if user, name, ok := strings.Cut(c.TokenID, "!"); !ok || !strings.Contains(user, "@") || name == "" {
		return fmt.Errorf("proxmox: TokenID %q must look like user@realm!tokenname", c.TokenID)
	}
	if strings.ContainsAny(c.TokenSecret, "\r\n ") {
		return errors.New("proxmox: TokenSecret must not contain spaces or line breaks")
	}
	if c.ConsolePing <= 0 {
		c.ConsolePing = consolePing
	}
	if (c.ConsoleUser == "") != (c.ConsolePassword == "") {
		return errors.New("proxmox: ConsoleUser and ConsolePassword must be set together")
	}
	if c.ConsoleUser != "" && !strings.Contains(c.ConsoleUser, "@") {
		return fmt.Errorf("proxmox: ConsoleUser %q must include its realm, e.g. vmconsole@pve", c.ConsoleUser)
	}
	if c.RequestTimeout < 0 || c.TaskPollInterval < 0 {
		return errors.New("proxmox: RequestTimeout and TaskPollInterval must not be negative")
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.TaskPollInterval == 0 {
		c.TaskPollInterval = DefaultTaskPollInterval
	}
	if c.DefaultStorage == "" {
		c.DefaultStorage = DefaultStorage
	}
	if c.DefaultBridge == "" {
		c.DefaultBridge = DefaultBridge
	}
	if c.BackupStorage == "" {
		c.BackupStorage = DefaultBackupStorage
	}
	if c.ISOStorage == "" {
		c.ISOStorage = DefaultISOStorage
	}
	return nil
}

// parseBaseURL accepts https://host:8006 or https://host:8006/api2/json.
func parseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("proxmox: URL %q: %v", raw, err)
	}
	if u.Scheme != "https" { // pveproxy only speaks TLS, and the token must not travel in clear
		return nil, fmt.Errorf("proxmox: URL %q must start with https://", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("proxmox: URL %q has no host", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("proxmox: URL must not carry credentials, a query or a fragment")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/api2/json") {
		u.Path += "/api2/json"
	}
	u.RawPath = ""
	return u, nil
}

// tlsConfig builds the client TLS settings described on Config.
func tlsConfig(cfg Config) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	switch {
	case cfg.Fingerprint != "":
		pin, err := parseFingerprint(cfg.Fingerprint)
		if err != nil {
			return nil, err
		}
		// The chain is not checked: the pin replaces it, as the Proxmox GUI's
		// fingerprint confirmation does. VerifyConnection runs even so.
		tc.InsecureSkipVerify = true
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the server sent no certificate")
			}
			sum := sha256.Sum256(cs.PeerCertificates[0].Raw)
			if subtle.ConstantTimeCompare(sum[:], pin) != 1 {
				return &pvehttp.PinError{Got: colonHex(sum[:])}
			}
			return nil
		}
	case cfg.InsecureSkipVerify:
		tc.InsecureSkipVerify = true
	case cfg.CAFile != "":
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("proxmox: CAFile: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("proxmox: CAFile %q holds no PEM certificate", cfg.CAFile)
		}
		tc.RootCAs = pool
	}
	return tc, nil
}

// parseFingerprint reads a SHA-256 fingerprint as hex, with or without colons.
func parseFingerprint(s string) ([]byte, error) {
	clean := strings.NewReplacer(":", "", " ", "", "-", "").Replace(strings.TrimSpace(s))
	b, err := hex.DecodeString(clean)
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("proxmox: Fingerprint %q is not a SHA-256 fingerprint (64 hex digits, colons optional)", s)
	}
	return b, nil
}

// colonHex formats a digest the way Proxmox shows fingerprints.
func colonHex(b []byte) string {
	h := strings.ToUpper(hex.EncodeToString(b))
	var sb strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			sb.WriteByte(':')
		}
		sb.WriteString(h[i : i+2])
	}
	return sb.String()
}

// quietLogger silences go-proxmox's own logger: at debug level it prints request
// bodies (which carry cloud-init passwords); the driver logs requests itself.
type quietLogger struct{}

func (quietLogger) Debugf(string, ...any) {}
func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Warnf(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
