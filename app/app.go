package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/limiter"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/webhooks"
	"github.com/vmplane/vmplane/httpedge"
	"github.com/vmplane/vmplane/httpedge/token"
	"github.com/vmplane/vmplane/httpedge/webui"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/hypervisor/proxmox"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/pdns"
	"github.com/vmplane/vmplane/persistence"
	"github.com/vmplane/vmplane/sso"
	"github.com/vmplane/vmplane/ui"
)

// Version is the build's version, set with -ldflags "-X github.com/vmplane/vmplane/app.Version=...".
var Version = "dev"

// Commit and Date are the source commit and the build date (RFC 3339, UTC) of a release
// build, set like Version by `make dist`; "unknown" in a plain `go build`.
var (
	Commit = "unknown"
	Date   = "unknown"
)

// App is a running vmplane server.
type App struct {
	cfg    Config
	log    *zap.Logger
	store  persistence.Store
	driver hypervisor.Driver
	sys    *actors.System
	// member, in cluster mode, is the membership; nil on a single node.
	member *member
	edge   *httpedge.Server
	ln     net.Listener
	// accessLog is the file of the access log (--access-log), closed last.
	accessLog *os.File
	pprof     *http.Server
	// metrics serves --metrics-addr on metricsLn (nil: /metrics is an API route).
	metrics   *fasthttp.Server
	metricsLn net.Listener
	served    chan error

	// bg is the context of the server's own background work (the first sync): Shutdown
	// cancels it first, so that no driver call it started outlives the shutdown.
	bg     context.Context
	stopBG context.CancelFunc
	// worldDone is closed once the simulated world is attached (attachWorld), which
	// close waits for (after stopBG) before it closes the store; nil when not
	// attaching in the background.
	worldDone chan struct{}
	// stage names what Shutdown is doing, for the log line of a shutdown that hangs.
	stage atomic.Pointer[string]
}

// NewLogger builds the zap logger a Config asks for.
func NewLogger(cfg Config) (*zap.Logger, error) {
	level, err := zapcore.ParseLevel(cfg.LogLevel)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	zc := zap.NewProductionConfig()
	if cfg.LogFormat == "console" {
		zc = zap.NewDevelopmentConfig()
	}
	zc.Level = zap.NewAtomicLevelAt(level)
	zc.Sampling = nil
	// ISO 8601 times an operator can read (and log tools parse) instead of epoch floats.
	zc.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	// No automatic stack traces on errors: an operator's error line says what failed
	// and why; the few places where a stack helps (panics) attach it with zap.Stack.
	zc.DisableStacktrace = true
	return zc.Build()
}

// Start opens the store, starts the driver, the actors and the edge, and serves on
// cfg.Addr (":0" picks a free port; Addr tells which). Driver, when non-nil, is used
// instead of the configured one, so tests can hold the simulated cluster they inject
// failures into.
func Start(cfg Config, log *zap.Logger, driver hypervisor.Driver) (*App, error) {
	if log == nil {
		log = zap.NewNop()
	}
	a := &App{cfg: cfg, log: log, served: make(chan error, 1)}
	a.bg, a.stopBG = context.WithCancel(context.Background())
	ok := false
	defer func() {
		if !ok {
			a.close()
		}
	}()
	// The API's address first: a port that is taken fails the start before anything
	// is written (the store, the first admin) or synced. Connections that come before
	// the edge serves wait in the listen backlog.
	if err := a.listen(cfg.Addr); err != nil {
		return nil, err
	}
	store, err := a.openStore(cfg, log)
	if err != nil {
		return nil, err
	}
	a.store = store
	// Before anything reads a record: an older store is migrated, a newer one refused.
	ctx, cancel := context.WithTimeout(a.bg, 5*time.Minute)
	_, err = persistence.Upgrade(ctx, store, log, actors.Migrations(log))
	cancel()
	if err != nil {
		return nil, err
	}
	if driver == nil {
		if driver, err = NewDriver(cfg, log.Named("driver")); err != nil {
			return nil, err
		}
	}
	if err := a.attachWorld(driver, log); err != nil {
		return nil, err
	}
	// The configured driver is the default location; the dispatcher routes each
	// call by the location its ref names.
	disp := hvloc.New(driver)
	driver = disp.Driver()
	a.driver = driver
	locOpts, err := locationOptions(cfg, log, disp, a.store)
	if err != nil {
		return nil, err
	}
	key, err := signingKey(cfg, a.store)
	if err != nil {
		return nil, err
	}
	tokens, err := token.New(key, cfg.AccessTTL)
	if err != nil {
		return nil, err
	}
	proxies, err := parseCIDRs(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	hookAllow, err := webhookAllow(cfg.WebhookAllowCIDRs)
	if err != nil {
		return nil, err
	}
	adminExisted, err := auth.AdminExists(a.bg, a.store)
	if err != nil {
		return nil, err
	}
	mail, err := resetMail(cfg)
	if err != nil {
		return nil, err
	}
	var providers *sso.Providers
	if cfg.OIDCProvidersFile != "" {
		pcs, err := sso.ReadFile(cfg.OIDCProvidersFile, cfg.PublicURL)
		if err != nil {
			return nil, err
		}
		providers = sso.New(pcs, nil)
	}
	a.sys, err = actors.Start(actors.Options{
		Store: a.store, Driver: driver, Logger: log, Locations: locOpts,
		EventRelay: a.eventRelay(), // events cluster-wide
		Auth: auth.AuthOptions{RefreshTTL: cfg.RefreshTTL, BcryptCost: cfg.BcryptCost, HashWorkers: cfg.HashWorkers, HashCommand: cfg.HashCommand,
			AdminEmail: cfg.AdminEmail, AdminPassword: cfg.AdminPassword, PasswordChanged: a.passwordChanged, ResetMail: mail,
			RequireOperatorTOTP: cfg.RequireOperatorTOTP},
		Limits: limiter.LimitOptions{
			Global:   limiter.Limit{Rate: cfg.RateGlobal, Per: time.Second, Burst: cfg.RateGlobalBurst},
			Auth:     limiter.Limit{Rate: cfg.RateAuth, Per: time.Minute, Burst: cfg.RateAuthBurst},
			KeyOwner: limiter.Limit{Rate: cfg.RateKeyOwner, Per: time.Second, Burst: cfg.RateKeyOwnerBurst},
			Login:    limiter.Limit{Rate: cfg.RateLogin, Per: time.Minute, Burst: cfg.RateLoginBurst},
			// Login limits
			LoginAddr:     limiter.Limit{Rate: cfg.RateLoginAddr, Per: time.Minute, Burst: cfg.RateLoginAddrBurst},
			LoginMaxDelay: cfg.LoginMaxDelay,
		},
		SyncInterval:  cfg.SyncInterval,
		SuspendAction: cfg.SuspendAction, TerminateGrace: cfg.TerminateGrace, AuditRetention: auditRetention(cfg.AuditRetention),
		UsageRetention: cfg.UsageRetention, IPReleaseCooldown: ipCooldown(cfg.IPReleaseCooldown), ReverseDNS: reverseDNS(cfg),
		TrafficOverageAction: cfg.TrafficOverageAction, TrafficThrottleMbps: cfg.TrafficThrottleMbps,
		Webhooks: webhooks.Options{AllowCIDRs: hookAllow, Clock: cfg.WebhookClock},
		Schedules: schedules.ScheduleOptions{Grace: cfg.ScheduleGrace, Now: cfg.ScheduleClock,
			MinBackupInterval: cfg.ScheduleMinBackupInterval, MinPowerInterval: cfg.ScheduleMinPowerInterval,
			PerTenant: cfg.SchedulesPerTenant},
		Faulty: monitoring.FaultyOptions{Window: cfg.FaultyWindow, TaskFailures: cfg.FaultyTaskFailures,
			CrashLoopCount: cfg.CrashLoopCount, CrashLoopWindow: cfg.CrashLoopWindow, HealthWindow: cfg.FaultyHealthWindow},
		HistoryInterval: cfg.HistoryInterval,
		Monitoring: monitoring.MonitoringOptions{NodeUsageThreshold: cfg.NodeUsageThreshold, NodeUsageFor: cfg.NodeUsageFor,
			HypervisorEvery: cfg.HypervisorCheckInterval},
		Overcommit: capacity.Overcommit{CPU: cfg.OvercommitCPU, Memory: cfg.OvercommitMemory, Disk: cfg.OvercommitDisk},
		Entities:   actors.EntityOptions{Idle: cfg.ActorIdle, MaxLive: cfg.ActorMaxLive},
		Placement:  a.placement(),
		Maintained: a.maintained(),
		ISODir:     filepath.Join(cfg.DataDir, "isos"), ISOMaxBytes: cfg.ISOMaxBytes,
	})
	if err != nil {
		return nil, err
	}
	// Before the first sync: it reads every location.
	if err := a.ensureSimLocations(cfg); err != nil {
		return nil, err
	}
	{
		ctx, cancel := context.WithTimeout(a.bg, worldAttachTimeout)
		if err := a.sweepSimWorlds(ctx); err != nil {
			// Left for the next start: nothing reads a world without its location.
			log.Warn("could not sweep the simulated worlds of deleted locations", zap.Error(err))
		}
		cancel()
	}
	a.serveMembers()
	if cfg.SyncInterval > 0 {
		// The first reconciliation runs in the background so that a large inventory
		// does not hold up serving; it is idempotent with any sync a client asks for.
		cluster, rt, worldDone := a.sys.Inventory, a.sys.Runtime(), a.worldDone
		go func() {
			defer kit.Recover(log, "initial sync", nil)
			// A simulated world still being read or written (worldAttachTimeout bounds
			// that) is waited for before the sync's own deadline starts: the sync's
			// driver calls wait for it anyway, and a million machines' world took most
			// of the five minutes on a busy host (BENCHMARKS.md, issue 33).
			if worldDone != nil {
				select {
				case <-worldDone:
				case <-a.bg.Done():
					return
				}
			}
			ctx, cancel := context.WithTimeout(a.bg, 5*time.Minute)
			defer cancel()
			if !rt.Leads(ctx, "periodic sync") {
				return // in a cluster, the member that syncs does it
			}
			if res, err := cluster.Sync(ctx); err != nil {
				log.Warn("initial sync failed", zap.Error(err))
			} else {
				log.Info("initial sync", zap.Int("nodes", res.Nodes), zap.Int("added", res.Machines.Added),
					zap.Int("updated", res.Machines.Updated), zap.Int("removed", res.Machines.Removed))
			}
		}()
	}
	accessLog, err := a.openAccessLog(cfg.AccessLog)
	if err != nil {
		return nil, err
	}
	var console *webui.Console
	if cfg.UI {
		if console, err = webui.New(ui.Files()); err != nil {
			return nil, fmt.Errorf("the web console's files: %w", err)
		}
	}
	a.edge = httpedge.New(httpedge.Options{Console: console, Services: edgeServices(a.sys), Store: a.store, Tokens: tokens, Logger: log, Version: Version, TrustedProxies: proxies, PublicURL: cfg.PublicURL, TOTPIssuer: cfg.TOTPIssuer, OIDC: providers, TenantDelete: cfg.TenantDelete, RequirePlans: cfg.RequirePlans, RescueISO: cfg.RescueISO,
		CORSOrigins: splitList(cfg.CORSOrigins), AccessLog: accessLog,
		IPv6Prefix: cfg.RateIPv6Prefix, HeaderTimeout: cfg.HeaderTimeout, IdleTimeout: cfg.IdleTimeout, MaxConnsPerAddr: cfg.MaxConnsPerAddr, Cluster: a.membership(),
		SeparateMetrics: cfg.MetricsAddr != ""})
	go func() { a.served <- a.edge.Serve(a.ln) }()
	if cfg.PprofAddr != "" {
		if err := a.servePprof(cfg.PprofAddr); err != nil {
			return nil, err
		}
	}
	if cfg.MetricsAddr != "" {
		if err := a.serveMetrics(cfg.MetricsAddr); err != nil {
			return nil, err
		}
	}
	log.Info("vmplane serving", zap.String("addr", a.ln.Addr().String()), zap.String("version", Version),
		zap.String("driver", driver.Name()), zap.String("data_dir", cfg.DataDir))
	if adminExisted && cfg.AdminPassword != "" {
		log.Warn("VMPLANE_ADMIN_PASSWORD (--admin-password) is ignored: it only sets the password of the first admin, "+
			"which an earlier start created; an operator changes a password with PATCH /api/resources/users/{id}, "+
			"or 'vmplane admin reset-password' with the server stopped", zap.String("admin_email", cfg.AdminEmail))
	}
	a.showInitialAdminPassword()
	ok = true
	return a, nil
}

// ListenError is an address the server could not listen on (taken, or not this
// host's): Start returns it before it has opened or written anything.
type ListenError struct {
	Addr string
	Err  error // the system's reason, as EADDRINUSE
}

func (e *ListenError) Error() string { return fmt.Sprintf("listen %s: %v", e.Addr, e.Err) }
func (e *ListenError) Unwrap() error { return e.Err }

// listen binds the API's listener, a.ln.
func (a *App) listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		// net's "listen tcp ADDR: bind: address already in use" without its layers.
		cause := err
		var op *net.OpError
		if errors.As(cause, &op) {
			cause = op.Err
		}
		var sc *os.SyscallError
		if errors.As(cause, &sc) {
			cause = sc.Err
		}
		return &ListenError{Addr: addr, Err: cause}
	}
	a.ln = ln
	return nil
}

// showInitialAdminPassword logs the first admin's generated password, once the server
// serves (so that an operator who reads "serving" finds it just above), and forgets it.
// A start that failed earlier kept it for now.
func (a *App) showInitialAdminPassword() {
	email, pw, ok, err := a.sys.Users.InitialAdminPassword(a.bg)
	if err != nil || !ok {
		return
	}
	// Also in a file only root (and the service's user) can read, for an appliance's
	// console to show; it goes when that password is changed.
	file := InitialPasswordFile(a.cfg.DataDir)
	if err := writeSynced(file, []byte(pw+"\n")); err != nil {
		a.log.Warn("could not write the generated admin password to its file", zap.String("file", file), zap.Error(err))
		file = ""
	}
	a.log.Warn("the first admin has a generated password, shown only this once; change it after logging in",
		zap.String("email", email), zap.String("password", pw), zap.String("file", file))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.sys.Users.ForgetInitialAdminPassword(ctx); err != nil {
		a.log.Warn("could not forget the generated admin password; it will be shown again at the next start", zap.Error(err))
	}
}

// InitialPasswordFile is where the first start leaves the first admin's generated
// password (mode 0600) until it is changed.
func InitialPasswordFile(dataDir string) string {
	return filepath.Join(dataDir, "initial-admin-password")
}

// passwordChanged removes the first boot's password file once the first admin's
// password was changed: what it holds no longer opens anything.
func (a *App) passwordChanged(userID string) {
	first, err := auth.FirstAdminID(a.bg, a.store)
	if err != nil || first != userID {
		return
	}
	if err := os.Remove(InitialPasswordFile(a.cfg.DataDir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		a.log.Warn("could not remove the generated admin password's file", zap.Error(err))
	}
}

// writeSynced writes a new file, readable by its owner only, and syncs it.
func writeSynced(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// servePprof serves Go's profiles on their own listener, apart from the API, so that
// they are never reachable through the API's address.
func (a *App) servePprof(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--pprof-addr %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	a.pprof = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = a.pprof.Serve(ln) }()
	a.log.Info("pprof serving", zap.String("addr", ln.Addr().String()))
	return nil
}

// serveMetrics serves /metrics on a listener of its own (--metrics-addr), so that it
// can stay on a private address while the API is public; the API's listener then does
// not serve it.
func (a *App) serveMetrics(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	a.metrics, a.metricsLn = a.edge.MetricsServer(), ln
	go func() { _ = a.metrics.Serve(ln) }()
	a.log.Info("metrics serving", zap.String("addr", ln.Addr().String()))
	return nil
}

// worldKeeper is a driver whose own world lives in vmplane's store: the simulated
// cluster, which has no hypervisor of its own to remember its machines.
type worldKeeper interface {
	AttachInBackground(ctx context.Context, store persistence.Store) <-chan sim.AttachResult
}

// worldAttachTimeout bounds the read (or the first write) of a simulated world: a
// million machines take a minute or two on a busy host.
const worldAttachTimeout = 10 * time.Minute

// attachWorld gives a simulated cluster the store, so that its machines, backups and
// nodes survive a restart as every other record does: a data directory that holds a
// simulated world gets it back, and a new one keeps the world the driver was made with.
// On a single node the world is read or written in the background, the driver's calls
// waiting for it, so that the server serves (and its health check answers) at once
// whatever the size of the world; a failure then leaves the hypervisor unavailable.
// A cluster's members attach before they serve (the first world written wins).
func (a *App) attachWorld(driver hypervisor.Driver, log *zap.Logger) error {
	w, ok := driver.(worldKeeper)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(a.bg, worldAttachTimeout)
	done := w.AttachInBackground(ctx, a.store)
	attached := func(r sim.AttachResult) error {
		if r.Err != nil {
			return fmt.Errorf("simulated cluster: %w", r.Err)
		}
		if r.Restored {
			log.Info("simulated cluster restored from the store (the data directory, or a cluster's etcd); --sim-seed, --sim-nodes and --sim-machines shape only a new one")
		}
		return nil
	}
	select {
	case r := <-done:
		cancel()
		return attached(r)
	default:
	}
	a.worldDone = make(chan struct{})
	go func() {
		defer close(a.worldDone)
		defer cancel()
		if err := attached(<-done); err != nil {
			log.Error("the simulated cluster could not be attached to the store; it answers unavailable", zap.Error(err))
			if s, ok := driver.(interface{ SetAvailable(bool) }); ok {
				s.SetAvailable(false)
			}
			return
		}
		log.Info("simulated cluster attached to the store")
	}()
	return nil
}

// NewDriver builds the hypervisor driver a Config names.
func NewDriver(cfg Config, log *zap.Logger) (hypervisor.Driver, error) {
	if log == nil {
		log = zap.NewNop()
	}
	switch cfg.Driver {
	case "sim", "":
		// Start attaches the world to the store: the demo machines are made only if it
		// holds none.
		return sim.New(sim.Config{Seed: cfg.SimSeed, Nodes: cfg.SimNodes, Machines: cfg.SimMachines, SeedOnAttach: true, OpDelay: cfg.SimOpDelay}), nil
	case "proxmox":
		return NewProxmoxDriver(cfg, log)
	}
	return nil, &ConfigError{Flag: "driver", Env: "VMPLANE_DRIVER", Value: cfg.Driver, Allowed: "must be sim or proxmox"}
}

// NewProxmoxDriver builds the proxmox driver from the settings; a bad setting is a
// *ConfigError naming it.
func NewProxmoxDriver(cfg Config, log *zap.Logger) (*proxmox.Driver, error) {
	d, err := proxmox.New(ProxmoxDriverConfig(cfg, log))
	if err != nil {
		return nil, proxmoxConfigError(err)
	}
	return d, nil
}

// ProxmoxDriverConfig is the proxmox driver's configuration from the settings.
func ProxmoxDriverConfig(cfg Config, log *zap.Logger) proxmox.Config {
	p := cfg.Proxmox
	return proxmox.Config{URL: p.URL, TokenID: p.TokenID, TokenSecret: p.TokenSecret,
		InsecureSkipVerify: p.Insecure, CAFile: p.CAFile, Fingerprint: p.Fingerprint,
		RequestTimeout: p.RequestTimeout, TaskPollInterval: p.PollEvery,
		DefaultStorage: p.Storage, DefaultBridge: p.Bridge, BackupStorage: p.BackupPool, ISOStorage: p.ISOStorage,
		ConsoleUser: p.ConsoleUser, ConsolePassword: p.ConsolePass, Logger: log}
}

// proxmoxSettings maps the proxmox.Config fields that its errors name to the settings
// an operator sets.
var proxmoxSettings = map[string]string{
	"URL": "proxmox-url", "TokenID": "proxmox-token-id", "TokenSecret": "proxmox-token-secret",
	"CAFile": "proxmox-ca-file", "Fingerprint": "proxmox-fingerprint", "InsecureSkipVerify": "proxmox-insecure",
	"RequestTimeout": "proxmox-request-timeout", "TaskPollInterval": "proxmox-task-poll-interval",
	"ConsoleUser": "proxmox-console-user", "ConsolePassword": "proxmox-console-password",
}

var proxmoxField = regexp.MustCompile(`\b(URL|TokenID|TokenSecret|CAFile|Fingerprint|InsecureSkipVerify|RequestTimeout|TaskPollInterval|ConsoleUser|ConsolePassword)\b`)

// proxmoxConfigError rewrites the driver's set-up error, which names its Go fields,
// in terms of the settings: VMPLANE_PROXMOX_TOKEN_ID (--proxmox-token-id).
func proxmoxConfigError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "proxmox: ")
	msg = proxmoxField.ReplaceAllStringFunc(msg, func(field string) string {
		flag := proxmoxSettings[field]
		return "VMPLANE_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_")) + " (--" + flag + ")"
	})
	return &ConfigError{Allowed: "proxmox driver: " + msg}
}

// Addr is the address the API listens on.
func (a *App) Addr() string { return a.ln.Addr().String() }

// Edge is the HTTP edge. (Only tests call it: httpedge's fuzz test walks the route
// table of a running App.)
func (a *App) Edge() *httpedge.Server { return a.edge }

// Served is closed with the serve loop's error when it stops.
func (a *App) Served() <-chan error { return a.served }

// Shutdown stops the server gracefully: stop accepting and drain requests in flight
// (each already acknowledged write is durable by then), on a cluster member hand its
// entities over to the others (cluster.Depart), stop the actors, close the store.
func (a *App) Shutdown(ctx context.Context) error {
	var errs []error
	a.setStage("cancelling background work")
	a.stopBG()
	if a.edge != nil {
		a.setStage("draining HTTP requests in flight")
		if err := a.edge.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("drain HTTP: %w", err))
		}
	}
	if a.member != nil {
		// Before the actors stop: the entities move to the other members while this
		// one still answers them (with "not delivered, look again").
		a.setStage("handing the entities over to the other members")
		a.member.cluster.Depart(ctx)
	}
	if err := a.close(); err != nil {
		errs = append(errs, err)
	}
	a.setStage("stopped")
	a.log.Info("vmplane stopped")
	return errors.Join(errs...)
}

// ShutdownStage names the step Shutdown is at ("not started" before it is called): what
// is still running when a shutdown passes its deadline.
func (a *App) ShutdownStage() string {
	if p := a.stage.Load(); p != nil {
		return *p
	}
	return "not started"
}

func (a *App) setStage(s string) { a.stage.Store(&s) }

func (a *App) close() error {
	a.stopBG()
	if a.worldDone != nil {
		a.setStage("waiting for the simulated world's read or write")
		<-a.worldDone
	}
	if a.pprof != nil {
		_ = a.pprof.Close()
		a.pprof = nil
	}
	if a.metrics != nil {
		// Shutdown closes the kept-alive connections of scrapers too; closing the
		// listener again covers a Serve that had not taken it yet.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = a.metrics.ShutdownWithContext(ctx)
		cancel()
		_ = a.metricsLn.Close()
		a.metrics, a.metricsLn = nil, nil
	}
	if a.sys != nil {
		a.setStage("stopping the actors (schedules, machine operations, health checks)")
		a.sys.Stop()
		a.sys = nil
	}
	if a.accessLog != nil {
		defer a.accessLog.Close()
		a.accessLog = nil
	}
	if a.ln != nil {
		// The edge's Shutdown closes the listeners its Serve has taken; one that came
		// before Serve took a.ln (a start stopped at once) leaves it open, and Serve,
		// when it comes, would accept on it forever. Closing it again is harmless.
		a.ln.Close()
	}
	if a.member != nil {
		a.setStage("leaving the cluster")
		err := a.member.close()
		a.member, a.store = nil, nil
		return err
	}
	if a.store != nil {
		a.setStage("closing the store")
		err := a.store.Close()
		a.store = nil
		return err
	}
	return nil
}

// signingKey returns the configured key, or the one kept in the store, generated at first start.
func signingKey(cfg Config, store persistence.Store) ([]byte, error) {
	if cfg.JWTKey != "" {
		return []byte(cfg.JWTKey), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	k := persistence.Key("meta", "jwt-key")
	key, err := store.Get(ctx, k)
	if err == nil {
		return key, nil
	}
	if !errors.Is(err, persistence.ErrNotFound) {
		return nil, err
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	// Created once: members of a cluster that start together race here, and the one
	// whose key lands first is the key of all.
	err = store.Commit(ctx, new(persistence.Batch).Put(k, key).Require(persistence.IfAbsent(k)))
	if persistence.IsConditionFailed(err) {
		return store.Get(ctx, k)
	}
	if err != nil {
		return nil, err
	}
	return key, nil
}

// webhookAllow is --webhook-allow-cidrs as prefixes.
func webhookAllow(s string) ([]netip.Prefix, error) {
	nets, err := parseCIDRs(s)
	if err != nil {
		return nil, fmt.Errorf("--webhook-allow-cidrs: %q is not a list of CIDRs", s)
	}
	out := make([]netip.Prefix, 0, len(nets))
	for _, n := range nets {
		a, _ := netip.AddrFromSlice(n.IP)
		ones, _ := n.Mask.Size()
		out = append(out, netip.PrefixFrom(a.Unmap(), ones))
	}
	return out, nil
}

func parseCIDRs(s string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			if strings.Contains(part, ":") {
				part += "/128"
			} else {
				part += "/32"
			}
		}
		_, n, err := net.ParseCIDR(part)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxies: %q is not a CIDR", part)
		}
		out = append(out, n)
	}
	return out, nil
}

// openAccessLog opens the access log's destination: nil for none, standard output for
// "-", else the file, appended to (create it 0640; rotate it with copytruncate).
func (a *App) openAccessLog(dest string) (io.Writer, error) {
	switch dest {
	case "":
		return nil, nil
	case "-":
		return os.Stdout, nil
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("access log: %w", err)
	}
	a.accessLog = f
	return f, nil
}

// splitList is a comma-separated setting's values, spaces trimmed, empty ones dropped.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// auditRetention is the audit log's retention for a configured one: 0 keeps entries
// for ever (audit.Deps says so with a negative one).
func auditRetention(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// ipCooldown is the IP pools' release cool-down for a configured one: 0 frees an
// address at once (addresses.Deps says so with a negative one; its 0 is the default).
func ipCooldown(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// reverseDNS is the PowerDNS server reverse names are pushed to; nil without
// --pdns-url.
func reverseDNS(cfg Config) addresses.ReverseDNS {
	if cfg.PDNSURL == "" {
		return nil
	}
	return pdns.New(cfg.PDNSURL, cfg.PDNSAPIKey, cfg.PDNSServerID)
}
