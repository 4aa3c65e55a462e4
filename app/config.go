// Package app wires a whole vmplane server together (configuration, logger, store,
// hypervisor driver, actor system and HTTP edge) and starts and stops it as one. The
// binary and the integration tests start servers the same way, through Start.
package app

import (
	"fmt"
	"github.com/vmplane/vmplane/actors/addresses"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/audit"
	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/actors/usage"
	"github.com/vmplane/vmplane/mailer"
	"github.com/vmplane/vmplane/pdns"
	"github.com/vmplane/vmplane/persistence"
	"github.com/vmplane/vmplane/sso"
)

// Config is every setting of `vmplane serve`.
type Config struct {
	Addr          string
	DataDir       string
	AdminEmail    string
	AdminPassword string
	// AdminPasswordFile, JWTKeyFile (and ProxmoxConfig.TokenSecretFile) name files the
	// secret is read from instead (Load reads them).
	AdminPasswordFile string
	JWTKeyFile        string
	Driver            string
	LogLevel          string
	LogFormat         string

	RateGlobal        float64
	RateGlobalBurst   int
	RateAuth          float64
	RateAuthBurst     int
	RateKeyOwner      float64
	RateKeyOwnerBurst int
	RateLogin         float64
	RateLoginBurst    int
	TrustedProxies    string
	PublicURL         string

	// Login limits: failed logins per e-mail from one client address (RateLogin is
	// per e-mail from all addresses together), and the longest a login from an
	// address with no failures waits while the e-mail's budget is spent.
	RateLoginAddr      float64
	RateLoginAddrBurst int
	LoginMaxDelay      time.Duration

	// The HTTP edge's client bounds: the IPv6 prefix that makes one client, the time
	// to send a request's headers, the idle time of a kept-alive connection and the
	// open connections of one client.
	RateIPv6Prefix  int
	HeaderTimeout   time.Duration
	IdleTimeout     time.Duration
	MaxConnsPerAddr int

	AccessTTL  time.Duration
	RefreshTTL time.Duration
	JWTKey     string
	BcryptCost int
	// HashWorkers is how many password hashes run at once.
	HashWorkers int
	// HashCommand starts a password hashing process (auth.AuthOptions.HashCommand);
	// not a setting: serve sets it to this binary's hash-worker command.
	HashCommand []string

	ShutdownTimeout time.Duration
	StoreCacheMB    int
	StoreSyncEach   bool
	PprofAddr       string
	// HeapFloorMB is the heap (MiB) the Go collector lets the process grow to before it
	// collects, at least (0: GOGC's pace alone). vmplane serve keeps it; GOGC set in
	// the environment wins, and a soft memory limit caps it at half the limit.
	HeapFloorMB int
	// MetricsAddr, when set, is the address of a listener of its own for /metrics,
	// which the API's listener then does not serve.
	MetricsAddr  string
	SyncInterval time.Duration

	// Insights: the faulty-deployment rules and the usage history sampler.
	FaultyWindow       time.Duration
	FaultyTaskFailures int
	CrashLoopCount     int
	CrashLoopWindow    time.Duration
	FaultyHealthWindow time.Duration
	HistoryInterval    time.Duration
	// ScheduleGrace is how old a schedule's run missed while vmplane was down may be
	// and still run once at start.
	ScheduleGrace time.Duration
	// ScheduleMinBackupInterval and ScheduleMinPowerInterval are the shortest time
	// allowed between two runs of a backup and of a power schedule, and
	// SchedulesPerTenant how many schedules a tenant may have (0: no bound).
	ScheduleMinBackupInterval time.Duration
	ScheduleMinPowerInterval  time.Duration
	SchedulesPerTenant        int
	// ScheduleClock, when set, is the schedules' clock instead of time.Now. It is no
	// setting: tests set it to be "later" across a restart.
	ScheduleClock func() time.Time
	// NodeUsageThreshold and NodeUsageFor tune the node_usage_high alert.
	NodeUsageThreshold float64
	NodeUsageFor       time.Duration

	// ActorIdle and ActorMaxLive bound the entity actors kept in memory per kind.
	ActorIdle    time.Duration
	ActorMaxLive int

	SimSeed     int64
	SimNodes    int
	SimMachines int
	// SimLocations is how many simulated locations the sim driver runs: the default
	// one and SimLocations-1 more (locations named sim-2, sim-3, ...).
	SimLocations int
	SimOpDelay   time.Duration

	Proxmox ProxmoxConfig

	// Mail (issue 30): the SMTP server password reset links are mailed through;
	// SMTPHost empty sends none (a reset is refused). SMTPPasswordFile names a file the
	// password is read from instead (Load reads it).
	SMTPHost         string
	SMTPPort         int
	SMTPSecurity     string
	SMTPUser         string
	SMTPPassword     string
	SMTPPasswordFile string
	SMTPFrom         string
	// TOTPIssuer names this server in the users' authenticator apps.
	TOTPIssuer string
	// OIDCProvidersFile names the file of the OpenID Connect providers users sign in
	// with (package sso); empty: none.
	OIDCProvidersFile string
	// LocationSecretKeyFile names the file of the key that seals the locations'
	// token secrets in the store (locations.ReadKey); empty: a location's secret is
	// read from a file it names.
	LocationSecretKeyFile string
	// TenantDelete lets tenant users delete their own machines.
	TenantDelete bool
	// RequireOperatorTOTP makes every operator sign in with a second factor.
	RequireOperatorTOTP bool
	// RequirePlans has tenant users create machines from plans only; the Overcommit
	// ratios are the capacity arithmetic's (plans' capacity, placement).
	RequirePlans                                    bool
	OvercommitCPU, OvercommitMemory, OvercommitDisk float64
	// ISOMaxBytes bounds an ISO image vmplane fetches itself (the sim driver's) or
	// takes as an upload;
	// RescueISO names the image (id or name) a machine's rescue boots.
	ISOMaxBytes int64
	RescueISO   string
	// SuspendAction is what a tenant's suspension that names no action does to its
	// running machines: stop, suspend or none.
	SuspendAction string
	// WebhookAllowCIDRs are the loopback, link-local or private addresses webhooks may
	// reach all the same (comma-separated CIDRs).
	WebhookAllowCIDRs string
	// WebhookClock, when set, is the webhooks' deliveries' clock. It is no setting:
	// tests advance a fake one through the backoff.
	WebhookClock kit.Clock
	// TerminateGrace is how long a machine marked for termination waits, stopped,
	// before it is deleted with its snapshots and backups.
	TerminateGrace time.Duration
	// AuditRetention is how long the audit log keeps its entries (0: for ever).
	AuditRetention time.Duration
	// UsageRetention is how long the hourly usage records (invoices' figures) are kept.
	UsageRetention time.Duration
	// IPReleaseCooldown is how long an address of a deleted machine stays held
	// before the IP pools give it again (0: at once).
	IPReleaseCooldown time.Duration
	// PDNSURL is the PowerDNS server's HTTP API the tenants' reverse names are pushed
	// to (empty: they are only stored), with its API key (PDNSAPIKeyFile names a file
	// it is read from instead; Load reads it) and server id.
	PDNSURL        string
	PDNSAPIKey     string
	PDNSAPIKeyFile string
	PDNSServerID   string
	// TrafficOverageAction is what a machine past its plan's monthly traffic
	// allowance gets (actors.OverageActions), TrafficThrottleMbps a throttle's rate.
	TrafficOverageAction string
	TrafficThrottleMbps  int
	// CORSOrigins are the browser origins allowed to call the API (comma-separated);
	// AccessLog the access log's destination ("" none, "-" standard output, a file).
	CORSOrigins string
	AccessLog   string
	// UI serves the web console at / (issue 32).
	UI bool

	// Operations (issue 16): storage faults.
	//
	// StoreMinFreeMB is the free space (MiB) on the data directory's disk below which
	// writes are refused with 507 (0: the store's default; negative: no check).
	StoreMinFreeMB int
	// StoreFreeSpace, when set, replaces the free-space query of the store. It is no
	// setting: tests use it to fill the disk.
	StoreFreeSpace func() (uint64, error)
	// HypervisorCheckInterval is how often the hypervisor is pinged for the
	// hypervisor_unavailable alert.
	HypervisorCheckInterval time.Duration

	// Appliance (issue 21): StoreMemTableMB and StoreIndexCacheMB size Badger's
	// memtables and table-index cache (the small profile lowers them with StoreCacheMB).
	StoreMemTableMB   int
	StoreIndexCacheMB int

	// Cluster (issue 20): with EtcdEndpoints set, the process is a member of a cluster
	// whose state lives in etcd under EtcdPrefix; NodeName names it (the host name when
	// empty) and ClusterAddr is where the other members reach it.
	EtcdEndpoints string
	EtcdPrefix    string
	NodeName      string
	ClusterAddr   string
	EtcdCAFile    string
	EtcdCertFile  string
	EtcdKeyFile   string
	// EtcdRequestTimeout bounds one request to etcd.
	EtcdRequestTimeout time.Duration
}

// ProxmoxConfig are the settings of the proxmox driver.
type ProxmoxConfig struct {
	URL, TokenID, TokenSecret   string
	TokenSecretFile             string
	CAFile, Fingerprint         string
	Insecure                    bool
	RequestTimeout, PollEvery   time.Duration
	Storage, Bridge, BackupPool string
	ConsoleUser, ConsolePass    string
	ISOStorage                  string
}

// setting is one row of the settings table: the single source of the flag, its
// environment variable, configuration file key, default and help text (and of the
// table in docs/configuration.md).
type setting struct {
	flag, env, help string
	// kind is the value's type, as pflag names it: string, int, int64, float64, bool
	// or duration.
	kind         string
	bind         func(fs *pflag.FlagSet, name, help string)
	get          func() any // the current value
	setFromEnv   func(string) error
	defaultValue string
}

// Defaults returns the configuration with every default applied.
func Defaults() Config {
	var c Config
	fs := pflag.NewFlagSet("defaults", pflag.ContinueOnError)
	for _, s := range c.table() {
		s.bind(fs, s.flag, s.help)
	}
	return c
}

func (c *Config) table() []setting {
	return []setting{
		str(&c.Addr, "addr", "VMPLANE_ADDR", ":8080", "address the HTTP API listens on (host:port)"),
		str(&c.DataDir, "data-dir", "VMPLANE_DATA_DIR", "./data", "directory of the embedded Badger store (created if missing)"),
		str(&c.AdminEmail, "admin-email", "VMPLANE_ADMIN_EMAIL", "admin@localhost", "e-mail of the admin created at first start"),
		str(&c.AdminPassword, "admin-password", "VMPLANE_ADMIN_PASSWORD", "", "password of the admin created at first start; random and logged once when empty"),
		str(&c.AdminPasswordFile, "admin-password-file", "VMPLANE_ADMIN_PASSWORD_FILE", "", "file holding the admin password (a final newline is dropped), e.g. a systemd credential; instead of --admin-password"),
		str(&c.Driver, "driver", "VMPLANE_DRIVER", "sim", "hypervisor driver: sim (embedded simulated cluster) or proxmox (a Proxmox VE cluster: set the --proxmox-* settings)"),
		str(&c.LogLevel, "log-level", "VMPLANE_LOG_LEVEL", "info", "log level: debug, info, warn, error"),
		str(&c.LogFormat, "log-format", "VMPLANE_LOG_FORMAT", "json", "log format: json or console"),
		flt(&c.RateGlobal, "rate-global", "VMPLANE_RATE_GLOBAL", 100, "requests per second per client address (0 disables)"),
		num(&c.RateGlobalBurst, "rate-global-burst", "VMPLANE_RATE_GLOBAL_BURST", 200, "global bucket size"),
		flt(&c.RateAuth, "rate-auth", "VMPLANE_RATE_AUTH", 30, "requests per minute per client address on /api/auth/* (0 disables)"),
		num(&c.RateAuthBurst, "rate-auth-burst", "VMPLANE_RATE_AUTH_BURST", 10, "auth bucket size"),
		flt(&c.RateKeyOwner, "rate-api-key", "VMPLANE_RATE_API_KEY", 100, "requests per second made with API keys, per user the keys act as (all of the user's keys together, from every address; the per-address limit applies too) (0 disables)"),
		num(&c.RateKeyOwnerBurst, "rate-api-key-burst", "VMPLANE_RATE_API_KEY_BURST", 200, "API key owner bucket size"),
		flt(&c.RateLogin, "rate-login", "VMPLANE_RATE_LOGIN", 10, "failed logins per minute per e-mail address, from all client addresses together (0 disables)"),
		num(&c.RateLoginBurst, "rate-login-burst", "VMPLANE_RATE_LOGIN_BURST", 5, "login per e-mail bucket size"),
		flt(&c.RateLoginAddr, "rate-login-addr", "VMPLANE_RATE_LOGIN_ADDR", 1, "failed logins per minute per e-mail address from one client address (0 disables)"),
		num(&c.RateLoginAddrBurst, "rate-login-addr-burst", "VMPLANE_RATE_LOGIN_ADDR_BURST", 5, "login per e-mail and client address bucket size"),
		dur(&c.LoginMaxDelay, "login-max-delay", "VMPLANE_LOGIN_MAX_DELAY", 10*time.Second, "longest a login from a client address with no failures waits while its e-mail's failure budget is spent; longer waits are refused (0..10s)"),
		str(&c.PublicURL, "public-url", "VMPLANE_PUBLIC_URL", "", "external base URL of this server (https://panel.example.com) for the URLs it hands out, such as console websockets; empty: paths, which clients join to the origin they use (never the request's Host)"),
		str(&c.TrustedProxies, "trusted-proxies", "VMPLANE_TRUSTED_PROXIES", "", "comma-separated CIDRs whose X-Forwarded-For is believed"),
		num(&c.RateIPv6Prefix, "rate-ipv6-prefix", "VMPLANE_RATE_IPV6_PREFIX", 64, "IPv6 clients are told apart by this prefix length for the rate limits and the connection cap (IPv4 by address) (1..128)"),
		dur(&c.HeaderTimeout, "header-timeout", "VMPLANE_HEADER_TIMEOUT", 10*time.Second, "time a client has to send a request's line and headers, from the connection's opening or the request's first byte (408 and closed beyond)"),
		dur(&c.IdleTimeout, "idle-timeout", "VMPLANE_IDLE_TIMEOUT", time.Minute, "a kept-alive connection that sends no request for this long is closed (event streams and consoles are not)"),
		num(&c.MaxConnsPerAddr, "max-conns-per-addr", "VMPLANE_MAX_CONNS_PER_ADDR", 256, "open connections allowed per client address (IPv6: per --rate-ipv6-prefix); more are answered 429 and closed; trusted proxies are exempt (0 disables)"),
		dur(&c.AccessTTL, "access-ttl", "VMPLANE_ACCESS_TTL", 15*time.Minute, "lifetime of access tokens"),
		dur(&c.RefreshTTL, "refresh-ttl", "VMPLANE_REFRESH_TTL", 720*time.Hour, "lifetime of a login's refresh tokens (extended by each rotation)"),
		str(&c.JWTKey, "jwt-key", "VMPLANE_JWT_KEY", "", "access token signing key, at least 32 bytes; generated and kept in the store when empty"),
		str(&c.JWTKeyFile, "jwt-key-file", "VMPLANE_JWT_KEY_FILE", "", "file holding the access token signing key (a final newline is dropped); instead of --jwt-key"),
		num(&c.BcryptCost, "bcrypt-cost", "VMPLANE_BCRYPT_COST", 10, "bcrypt cost of password hashes (4..31)"),
		num(&c.HashWorkers, "hash-workers", "VMPLANE_HASH_WORKERS", 1, "password hashes (logins, new users, password changes) computed at once, each in a child process at the lowest OS priority (1..64)"),
		dur(&c.ShutdownTimeout, "shutdown-timeout", "VMPLANE_SHUTDOWN_TIMEOUT", 20*time.Second, "how long a graceful shutdown waits for requests in flight"),
		dur(&c.SyncInterval, "sync-interval", "VMPLANE_SYNC_INTERVAL", time.Minute, "how often the store is reconciled with the hypervisor's inventory, also once at start (0: only on POST /api/virt/sync)"),
		dur(&c.ScheduleGrace, "schedule-grace", "VMPLANE_SCHEDULE_GRACE", time.Hour, "a schedule's run missed while vmplane was down runs once at start if it is due at most this long ago; older ones are skipped and recorded (0: skip all)"),
		dur(&c.ScheduleMinBackupInterval, "schedule-min-backup-interval", "VMPLANE_SCHEDULE_MIN_BACKUP_INTERVAL", schedules.DefaultMinBackupInterval, "shortest time allowed between two runs of a backup schedule: a cron expression that fires more often is refused (0: no bound)"),
		dur(&c.ScheduleMinPowerInterval, "schedule-min-power-interval", "VMPLANE_SCHEDULE_MIN_POWER_INTERVAL", schedules.DefaultMinPowerInterval, "shortest time allowed between two runs of a power schedule: a cron expression that fires more often is refused (0: no bound)"),
		num(&c.SchedulesPerTenant, "schedules-per-tenant", "VMPLANE_SCHEDULES_PER_TENANT", 0, "power and backup schedules a tenant may have together; one more is refused with quota_exceeded (0: no bound)"),
		dur(&c.FaultyWindow, "faulty-window", "VMPLANE_FAULTY_WINDOW", 24*time.Hour, "faulty deployments: how far back failed tasks and failed deployments count"),
		num(&c.FaultyTaskFailures, "faulty-task-failures", "VMPLANE_FAULTY_TASK_FAILURES", 3, "faulty deployments: failed tasks within --faulty-window that make repeated_failures"),
		num(&c.CrashLoopCount, "crash-loop-count", "VMPLANE_CRASH_LOOP_COUNT", 3, "faulty deployments: unexpected stops within --crash-loop-window that make a crash_loop"),
		dur(&c.CrashLoopWindow, "crash-loop-window", "VMPLANE_CRASH_LOOP_WINDOW", time.Hour, "faulty deployments: the window of --crash-loop-count (crash records are kept this long)"),
		dur(&c.FaultyHealthWindow, "faulty-health-window", "VMPLANE_FAULTY_HEALTH_WINDOW", time.Hour, "faulty deployments: a failing health check makes a machine created this recently failing_health_checks"),
		dur(&c.HistoryInterval, "history-interval", "VMPLANE_HISTORY_INTERVAL", time.Hour, "how often the cluster's usage is sampled into the daily history behind the forecast (0: never, and no backfill from the usage graphs)"),
		flt(&c.NodeUsageThreshold, "node-usage-threshold", "VMPLANE_NODE_USAGE_THRESHOLD", 0.9, "fraction (0..1] of a node's cpu or memory above which it counts as busy for the node_usage_high alert"),
		dur(&c.NodeUsageFor, "node-usage-for", "VMPLANE_NODE_USAGE_FOR", 10*time.Minute, "how long a node must stay busy before node_usage_high fires (node figures refresh with each sync)"),
		num(&c.StoreCacheMB, "store-cache-mb", "VMPLANE_STORE_CACHE_MB", 32, "Badger block cache size in MiB"),
		num(&c.StoreMemTableMB, "store-memtable-mb", "VMPLANE_STORE_MEMTABLE_MB", 16, "Badger memtable size in MiB (8..256): up to three are in memory, and the largest write batch is 15% of one"),
		num(&c.StoreIndexCacheMB, "store-index-cache-mb", "VMPLANE_STORE_INDEX_CACHE_MB", 16, "Badger table-index cache size in MiB (at least 1)"),
		dur(&c.ActorIdle, "actor-idle", "VMPLANE_ACTOR_IDLE", 5*time.Minute, "an entity actor (a machine, user, tenant, ...) idle this long is stopped; its next request loads it again from the store"),
		num(&c.ActorMaxLive, "actor-max-live", "VMPLANE_ACTOR_MAX_LIVE", 10000, "entity actors of one kind kept in memory at most; beyond it the least recently used idle ones are stopped (health checks are not counted: they run their probes)"),
		str(&c.MetricsAddr, "metrics-addr", "VMPLANE_METRICS_ADDR", "", "serve /metrics on this address of its own (e.g. 127.0.0.1:9090), and not on the API's address (empty: /metrics is a route of the API)"),
		str(&c.PprofAddr, "pprof-addr", "VMPLANE_PPROF_ADDR", "", "serve Go's pprof profiles on this address (e.g. 127.0.0.1:6060; empty: off); keep it on loopback"),
		num(&c.HeapFloorMB, "heap-floor-mb", "VMPLANE_HEAP_FLOOR_MB", 160, "the heap, in MiB, the Go collector lets the server grow to before it collects, at least: fewer collections under load, for steadier latencies (0: GOGC's pace alone; GOGC set in the environment wins; at most half a soft memory limit)"),
		boolean(&c.StoreSyncEach, "store-sync-each-write", "VMPLANE_STORE_SYNC_EACH_WRITE", false, "give every write its own synced transaction instead of group commit: slower, only a baseline for benchmarks"),
		i64(&c.SimSeed, "sim-seed", "VMPLANE_SIM_SEED", 1, "seed of the simulated cluster (sim driver)"),
		num(&c.SimNodes, "sim-nodes", "VMPLANE_SIM_NODES", 3, "number of simulated nodes (sim driver)"),
		num(&c.SimMachines, "sim-machines", "VMPLANE_SIM_MACHINES", 6, "demo machines the simulated cluster starts with (sim driver)"),
		num(&c.SimLocations, "sim-locations", "VMPLANE_SIM_LOCATIONS", 1, "simulated locations (sim driver): the default one and N-1 more, locations named sim-2, sim-3, ..., each a cluster of --sim-nodes nodes and --sim-machines demo machines of its own, kept in the store"),
		dur(&c.SimOpDelay, "sim-op-delay", "VMPLANE_SIM_OP_DELAY", 300*time.Millisecond, "simulated duration of each hypervisor operation (sim driver)"),
		str(&c.Proxmox.URL, "proxmox-url", "VMPLANE_PROXMOX_URL", "", "Proxmox VE API URL, https://host:8006/api2/json (proxmox driver)"),
		str(&c.Proxmox.TokenID, "proxmox-token-id", "VMPLANE_PROXMOX_TOKEN_ID", "", "API token id, user@realm!name (proxmox driver)"),
		str(&c.Proxmox.TokenSecret, "proxmox-token-secret", "VMPLANE_PROXMOX_TOKEN_SECRET", "", "API token secret (proxmox driver; prefer the environment variable)"),
		str(&c.Proxmox.TokenSecretFile, "proxmox-token-secret-file", "VMPLANE_PROXMOX_TOKEN_SECRET_FILE", "", "file holding the API token secret (a final newline is dropped); instead of --proxmox-token-secret"),
		str(&c.Proxmox.CAFile, "proxmox-ca-file", "VMPLANE_PROXMOX_CA_FILE", "", "PEM file of the CA that signed the Proxmox certificate"),
		str(&c.Proxmox.Fingerprint, "proxmox-fingerprint", "VMPLANE_PROXMOX_FINGERPRINT", "", "SHA-256 fingerprint of the Proxmox certificate to pin instead of a CA"),
		str(&c.LocationSecretKeyFile, "location-secret-key-file", "VMPLANE_LOCATION_SECRET_KEY_FILE", "", "file of the 32-byte key (64 hex digits or base64) that seals the token secrets of the locations' Proxmox clusters in the store; empty: a location names a file holding its secret instead"),
		boolean(&c.Proxmox.Insecure, "proxmox-insecure", "VMPLANE_PROXMOX_INSECURE", false, "skip TLS verification of Proxmox (never in production)"),
		dur(&c.Proxmox.RequestTimeout, "proxmox-request-timeout", "VMPLANE_PROXMOX_REQUEST_TIMEOUT", 15*time.Second, "timeout of one Proxmox API request"),
		dur(&c.Proxmox.PollEvery, "proxmox-task-poll-interval", "VMPLANE_PROXMOX_TASK_POLL_INTERVAL", time.Second, "how often a Proxmox task (UPID) is polled until it ends"),
		str(&c.Proxmox.Storage, "proxmox-default-storage", "VMPLANE_PROXMOX_DEFAULT_STORAGE", "local-lvm", "storage of new disks"),
		str(&c.Proxmox.Bridge, "proxmox-default-bridge", "VMPLANE_PROXMOX_DEFAULT_BRIDGE", "vmbr0", "bridge of new interfaces"),
		str(&c.Proxmox.BackupPool, "proxmox-backup-storage", "VMPLANE_PROXMOX_BACKUP_STORAGE", "local", "storage of vzdump backups"),
		str(&c.Proxmox.ConsoleUser, "proxmox-console-user", "VMPLANE_PROXMOX_CONSOLE_USER", "", "pve-realm user with only VM.Console, for consoles (API tokens cannot open them)"),
		str(&c.Proxmox.ConsolePass, "proxmox-console-password", "VMPLANE_PROXMOX_CONSOLE_PASSWORD", "", "password of the console user"),
		str(&c.Proxmox.ISOStorage, "proxmox-iso-storage", "VMPLANE_PROXMOX_ISO_STORAGE", "local", "storage (content iso) the ISO library's images are fetched into, by Proxmox's download-url on every node that has it (once when shared)"),
		// Operations (issue 16).
		dur(&c.HypervisorCheckInterval, "hypervisor-check-interval", "VMPLANE_HYPERVISOR_CHECK_INTERVAL", 30*time.Second, "how often the hypervisor is pinged; two failures in a row raise the critical hypervisor_unavailable alert, the next answer resolves it"),
		// Cluster (issue 20).
		str(&c.EtcdEndpoints, "etcd-endpoints", "VMPLANE_ETCD_ENDPOINTS", "", "empty: a single node on the embedded Badger store; else comma-separated etcd client URLs, and this process is a member of the cluster whose state lives there"),
		str(&c.EtcdPrefix, "etcd-prefix", "VMPLANE_ETCD_PREFIX", "/vmplane/", "every key under it, so installations can share one etcd"),
		str(&c.NodeName, "node-name", "VMPLANE_NODE_NAME", "", "this member's name (empty: the host name); unique per member, stable across restarts"),
		str(&c.ClusterAddr, "cluster-addr", "VMPLANE_CLUSTER_ADDR", "", "required in cluster mode: host:port this member listens on for member-to-member traffic, as the other members reach it"),
		str(&c.EtcdCAFile, "etcd-ca-file", "VMPLANE_ETCD_CA_FILE", "", "PEM file of the CA that signed etcd's certificate (TLS to etcd)"),
		str(&c.EtcdCertFile, "etcd-cert-file", "VMPLANE_ETCD_CERT_FILE", "", "client certificate (PEM) for etcd"),
		str(&c.EtcdKeyFile, "etcd-key-file", "VMPLANE_ETCD_KEY_FILE", "", "client certificate's key (PEM) for etcd"),
		dur(&c.EtcdRequestTimeout, "etcd-request-timeout", "VMPLANE_ETCD_REQUEST_TIMEOUT", persistence.DefaultEtcdRequestTimeout, "timeout of one request to etcd: a write it ends answers 504 (it may have been applied); raise it when etcd's disk is slow"),
		// Mail (issue 30).
		str(&c.SMTPHost, "smtp-host", "VMPLANE_SMTP_HOST", "", "SMTP server that password reset links are mailed through (empty: no mail, and resets are refused); needs --smtp-from and --public-url"),
		num(&c.SMTPPort, "smtp-port", "VMPLANE_SMTP_PORT", 587, "port of the SMTP server (587 for starttls, 465 for tls)"),
		str(&c.SMTPSecurity, "smtp-security", "VMPLANE_SMTP_SECURITY", "starttls", "starttls, tls (TLS from the first byte) or none (plain text: a relay on this host only)"),
		str(&c.SMTPUser, "smtp-user", "VMPLANE_SMTP_USER", "", "user of the SMTP server's login (empty: no login)"),
		str(&c.SMTPPassword, "smtp-password", "VMPLANE_SMTP_PASSWORD", "", "password of that user (prefer --smtp-password-file)"),
		str(&c.SMTPPasswordFile, "smtp-password-file", "VMPLANE_SMTP_PASSWORD_FILE", "", "file holding the SMTP password (a final newline is dropped); instead of --smtp-password"),
		str(&c.SMTPFrom, "smtp-from", "VMPLANE_SMTP_FROM", "", "sender of vmplane's mail, an address or \"Name <address>\""),
		str(&c.TOTPIssuer, "totp-issuer", "VMPLANE_TOTP_ISSUER", "vmplane", "the name users' authenticator apps show for this server's codes (e.g. the hosting company's)"),
		str(&c.OIDCProvidersFile, "oidc-providers-file", "VMPLANE_OIDC_PROVIDERS_FILE", "", "TOML file of the OpenID Connect providers operators and tenant users sign in with ([[provider]] tables: id, issuer, client id and secret file, tenant claim and map; see the README); empty: none"),
		boolean(&c.RequireOperatorTOTP, "require-operator-totp", "VMPLANE_REQUIRE_OPERATOR_TOTP", false, "every operator must sign in with a second factor: one without gets a login that may only enrol one"),
		boolean(&c.TenantDelete, "tenant-delete", "VMPLANE_TENANT_DELETE", false, "let tenant users delete their own machines (off: only operators delete machines, as a hosting company whose billing ends machines wants)"),
		// Plans (issue 31).
		boolean(&c.RequirePlans, "require-plans", "VMPLANE_REQUIRE_PLANS", false, "tenant users create machines from plans only (a create without plan_id is 400); operators may always give explicit sizes"),
		flt(&c.OvercommitCPU, "overcommit-cpu", "VMPLANE_OVERCOMMIT_CPU", 4, "how many times over a node's cores vmplane's machines on it may be given, for plans' capacity and placement (at least 1)"),
		flt(&c.OvercommitMemory, "overcommit-memory", "VMPLANE_OVERCOMMIT_MEMORY", 1, "the same for a node's memory (at least 1)"),
		flt(&c.OvercommitDisk, "overcommit-disk", "VMPLANE_OVERCOMMIT_DISK", 1, "the same for a node's disk (at least 1; thin provisioned storage allows more)"),
		i64(&c.ISOMaxBytes, "iso-max-bytes", "VMPLANE_ISO_MAX_BYTES", isos.DefaultMaxBytes, "largest ISO image vmplane fetches itself (sim driver) or takes as an upload (every driver), in bytes, streamed to <data-dir>/isos; a larger fetch fails, a larger upload is refused before its body is read"),
		str(&c.RescueISO, "rescue-iso", "VMPLANE_RESCUE_ISO", "", "the ISO library's image (id or name) a machine's rescue boots (empty: rescue is refused with 409)"),
		dur(&c.IPReleaseCooldown, "ip-release-cooldown", "VMPLANE_IP_RELEASE_COOLDOWN", addresses.DefaultCooldown, "how long an address (or IPv6 prefix) of a deleted machine stays held before the IP pools give it to another machine (0: at once)"),
		str(&c.PDNSURL, "pdns-url", "VMPLANE_PDNS_URL", "", "base URL of a PowerDNS Authoritative server's HTTP API (e.g. http://127.0.0.1:8081) that the reverse DNS names of machines' addresses are pushed to, into the longest reverse zone holding each address (empty: names are only stored); needs --pdns-api-key-file"),
		str(&c.PDNSAPIKey, "pdns-api-key", "VMPLANE_PDNS_API_KEY", "", "the PowerDNS API's key (prefer --pdns-api-key-file)"),
		str(&c.PDNSAPIKeyFile, "pdns-api-key-file", "VMPLANE_PDNS_API_KEY_FILE", "", "file holding the PowerDNS API's key (a final newline is dropped); instead of --pdns-api-key"),
		str(&c.PDNSServerID, "pdns-server-id", "VMPLANE_PDNS_SERVER_ID", pdns.DefaultServerID, "the server id in the PowerDNS API's paths (/api/v1/servers/<id>)"),
		dur(&c.UsageRetention, "usage-retention", "VMPLANE_USAGE_RETENTION", usage.DefaultRetention, "how long the hourly usage records (what GET .../usage answers for invoices) are kept; older hours are deleted"),
		str(&c.TrafficOverageAction, "traffic-overage-action", "VMPLANE_TRAFFIC_OVERAGE_ACTION", actors.OverageReport, "what a machine whose traffic this month went past its plan's traffic_gb gets, until the month's turn: report (an alert and the machine.traffic_exceeded event), throttle (also its interfaces' rate limit set to --traffic-throttle-mbps) or suspend (also a billing suspension)"),
		num(&c.TrafficThrottleMbps, "traffic-throttle-mbps", "VMPLANE_TRAFFIC_THROTTLE_MBPS", 10, "the rate limit, in Mbit/s, a throttle sets on the interfaces of a machine past its traffic allowance (--traffic-overage-action throttle)"),
		dur(&c.TerminateGrace, "terminate-grace", "VMPLANE_TERMINATE_GRACE", 0, "how long a machine marked for termination (POST /api/virt/vms/:id/terminate) waits, stopped, before it is deleted with its snapshots and backups; a cancel takes it back until then (0: deleted at once)"),
		dur(&c.AuditRetention, "audit-retention", "VMPLANE_AUDIT_RETENTION", audit.DefaultRetention, "how long the audit log (GET /api/audit) keeps its entries; older ones are deleted once an hour (0: kept for ever)"),
		str(&c.SuspendAction, "suspend-action", "VMPLANE_SUSPEND_ACTION", "stop", "what a tenant's suspension that names no action does to its running machines: stop, suspend (on the hypervisor) or none"),
		str(&c.WebhookAllowCIDRs, "webhook-allow-cidrs", "VMPLANE_WEBHOOK_ALLOW_CIDRS", "", "comma-separated CIDRs that webhooks may reach although they are loopback, link-local, private or unspecified addresses (empty: none)"),
		boolean(&c.UI, "ui", "VMPLANE_UI", true, "serve the web console at / on the API's listener (false: only /api and /metrics answer; every other path is 404)"),
		str(&c.CORSOrigins, "cors-origins", "VMPLANE_CORS_ORIGINS", "", "comma-separated origins (https://panel.example.com) whose pages may call the API from a browser (empty: none)"),
		str(&c.AccessLog, "access-log", "VMPLANE_ACCESS_LOG", "", "one line per request, in the combined log format, to this file (\"-\": standard output; empty: none)"),
		num(&c.StoreMinFreeMB, "store-min-free-mb", "VMPLANE_STORE_MIN_FREE_MB", 0, "writes are refused (507) while the data directory's disk has less free space than this, in MiB (0: 4 memtables + 16 MiB, 80 MiB; negative: never)"),
	}
}

func str(p *string, name, env, def, help string) setting {
	return setting{flag: name, env: env, help: help, kind: "string", defaultValue: def,
		bind:       func(fs *pflag.FlagSet, n, h string) { fs.StringVar(p, n, def, h) },
		get:        func() any { return *p },
		setFromEnv: func(v string) error { *p = v; return nil }}
}

func num(p *int, name, env string, def int, help string) setting {
	return setting{flag: name, env: env, help: help, kind: "int", defaultValue: strconv.Itoa(def),
		bind: func(fs *pflag.FlagSet, n, h string) { fs.IntVar(p, n, def, h) },
		get:  func() any { return *p },
		setFromEnv: func(v string) (err error) {
			*p, err = strconv.Atoi(v)
			return err
		}}
}

func i64(p *int64, name, env string, def int64, help string) setting {
	return setting{flag: name, env: env, help: help, kind: "int64", defaultValue: strconv.FormatInt(def, 10),
		bind: func(fs *pflag.FlagSet, n, h string) { fs.Int64Var(p, n, def, h) },
		get:  func() any { return *p },
		setFromEnv: func(v string) (err error) {
			*p, err = strconv.ParseInt(v, 10, 64)
			return err
		}}
}

func flt(p *float64, name, env string, def float64, help string) setting {
	return setting{flag: name, env: env, help: help, kind: "float64", defaultValue: strconv.FormatFloat(def, 'g', -1, 64),
		bind: func(fs *pflag.FlagSet, n, h string) { fs.Float64Var(p, n, def, h) },
		get:  func() any { return *p },
		setFromEnv: func(v string) (err error) {
			*p, err = strconv.ParseFloat(v, 64)
			return err
		}}
}

func boolean(p *bool, name, env string, def bool, help string) setting {
	return setting{flag: name, env: env, help: help, kind: "bool", defaultValue: strconv.FormatBool(def),
		bind: func(fs *pflag.FlagSet, n, h string) { fs.BoolVar(p, n, def, h) },
		get:  func() any { return *p },
		setFromEnv: func(v string) (err error) {
			*p, err = strconv.ParseBool(v)
			return err
		}}
}

func dur(p *time.Duration, name, env string, def time.Duration, help string) setting {
	return setting{flag: name, env: env, help: help, kind: "duration", defaultValue: def.String(),
		bind: func(fs *pflag.FlagSet, n, h string) { fs.DurationVar(p, n, def, h) },
		get:  func() any { return *p },
		setFromEnv: func(v string) (err error) {
			*p, err = time.ParseDuration(v)
			return err
		}}
}

// ConfigError is a setting with a value that is not allowed. Its message is one line
// naming the flag, its environment variable, the value and what is allowed; `vmplane
// serve` prints it and exits with status 2.
type ConfigError struct {
	Flag, Env, Value string
	// File is the configuration file the value comes from ("" for a flag or variable).
	File string
	// Allowed says what the setting accepts (or what is wrong with the value).
	Allowed string
}

func (e *ConfigError) Error() string {
	if e.File != "" && e.Flag == "" {
		return fmt.Sprintf("invalid configuration file %s: %s", e.File, e.Allowed)
	}
	if e.File != "" {
		return fmt.Sprintf("invalid setting %s = %q in %s: %s", e.Flag, e.Value, e.File, e.Allowed)
	}
	if e.Flag == "" {
		return "invalid configuration: " + e.Allowed
	}
	return fmt.Sprintf("invalid setting --%s (%s) = %q: %s", e.Flag, e.Env, e.Value, e.Allowed)
}

// kindOf says what values a setting of kind (its pflag type) takes.
func kindOf(kind string) string {
	switch kind {
	case "int", "int64":
		return "an integer"
	case "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 30s, 5m or 1h"
	}
	return "valid"
}

func lookup(getenv func(string) string, name string) (string, bool) {
	if getenv == nil {
		getenv = os.Getenv
	}
	v := getenv(name)
	return v, v != ""
}

// bad is the ConfigError of the setting whose flag is name, with its current value.
func (c *Config) bad(name string, value any, allowed string, args ...any) *ConfigError {
	e := &ConfigError{Flag: name, Value: fmt.Sprint(value), Allowed: fmt.Sprintf(allowed, args...)}
	if d, ok := value.(time.Duration); ok {
		e.Value = d.String()
	}
	for _, s := range c.table() {
		if s.flag == name {
			e.Env = s.env
		}
	}
	return e
}

// validate checks the values that parse but are not allowed, in the table's order, and
// returns the first problem.
func (c *Config) validate() error {
	checks := []struct {
		bad bool
		err func() *ConfigError
	}{
		// The packaged configuration leaves the driver empty: a package enabled without
		// edits must not serve a simulated cluster with demo machines to the network.
		{c.Driver == "", func() *ConfigError {
			return c.bad("driver", c.Driver, `no hypervisor driver chosen: set driver = "proxmox" (with the proxmox-* settings), or "sim" for a simulated cluster with demo machines`)
		}},
		{c.Driver != "" && c.Driver != "sim" && c.Driver != "proxmox", func() *ConfigError { return c.bad("driver", c.Driver, "must be sim or proxmox") }},
		{zapLevelInvalid(c.LogLevel), func() *ConfigError { return c.bad("log-level", c.LogLevel, "must be debug, info, warn or error") }},
		{c.LogFormat != "json" && c.LogFormat != "console", func() *ConfigError { return c.bad("log-format", c.LogFormat, "must be json or console") }},
		{c.UsageRetention < time.Hour, func() *ConfigError { return c.bad("usage-retention", c.UsageRetention, "must be at least 1h") }},
		{c.IPReleaseCooldown < 0, func() *ConfigError { return c.bad("ip-release-cooldown", c.IPReleaseCooldown, "must not be negative") }},
		{c.TerminateGrace < 0, func() *ConfigError { return c.bad("terminate-grace", c.TerminateGrace, "must not be negative") }},
		{c.AuditRetention < 0, func() *ConfigError {
			return c.bad("audit-retention", c.AuditRetention, "must not be negative (0 keeps entries for ever)")
		}},
		{!slices.Contains(actors.OverageActions, c.TrafficOverageAction), func() *ConfigError {
			return c.bad("traffic-overage-action", c.TrafficOverageAction, "must be report, throttle or suspend")
		}},
		{c.TrafficThrottleMbps < 1 || c.TrafficThrottleMbps > machines.MaxRateMbps, func() *ConfigError {
			return c.bad("traffic-throttle-mbps", c.TrafficThrottleMbps, "must be 1..%d", machines.MaxRateMbps)
		}},
		{!slices.Contains(tenants.SuspendActions, c.SuspendAction), func() *ConfigError {
			return c.bad("suspend-action", c.SuspendAction, "must be stop, suspend or none")
		}},
		{c.RateGlobal < 0, func() *ConfigError { return c.bad("rate-global", c.RateGlobal, "must not be negative (0 disables)") }},
		{c.RateAuth < 0, func() *ConfigError { return c.bad("rate-auth", c.RateAuth, "must not be negative (0 disables)") }},
		{c.RateKeyOwner < 0, func() *ConfigError { return c.bad("rate-api-key", c.RateKeyOwner, "must not be negative (0 disables)") }},
		{c.RateLogin < 0, func() *ConfigError { return c.bad("rate-login", c.RateLogin, "must not be negative (0 disables)") }},
		{c.PublicURL != "" && !strings.HasPrefix(c.PublicURL, "http://") && !strings.HasPrefix(c.PublicURL, "https://"),
			func() *ConfigError { return c.bad("public-url", c.PublicURL, "must start with http:// or https://") }},
		{c.SMTPSecurity != string(mailer.StartTLS) && c.SMTPSecurity != string(mailer.TLS) && c.SMTPSecurity != string(mailer.None),
			func() *ConfigError { return c.bad("smtp-security", c.SMTPSecurity, "must be starttls, tls or none") }},
		{c.SMTPPort < 1 || c.SMTPPort > 65535, func() *ConfigError { return c.bad("smtp-port", c.SMTPPort, "must be 1..65535") }},
		{endpointsInvalid(c.PDNSURL), func() *ConfigError { return c.bad("pdns-url", c.PDNSURL, "must be an http:// or https:// URL") }},
		{c.PDNSURL != "" && c.PDNSAPIKey == "", func() *ConfigError {
			return c.bad("pdns-url", c.PDNSURL, "needs the API's key (--pdns-api-key-file)")
		}},
		{c.SMTPHost != "" && c.SMTPFrom == "", func() *ConfigError {
			return c.bad("smtp-from", c.SMTPFrom, "must be set with --smtp-host: the sender of the mail")
		}},
		{c.SMTPHost != "" && c.PublicURL == "", func() *ConfigError {
			return c.bad("public-url", c.PublicURL, "must be set with --smtp-host: the links vmplane mails point at it")
		}},
		{c.SMTPHost != "" && c.mail().Check() != nil, func() *ConfigError {
			return c.bad("smtp-host", c.SMTPHost, "%s", c.mail().Check().Error())
		}},
		{c.OIDCProvidersFile != "" && c.oidcProviders() != nil, func() *ConfigError {
			return c.bad("oidc-providers-file", c.OIDCProvidersFile, "%s", c.oidcProviders().Error())
		}},
		{originsInvalid(c.CORSOrigins), func() *ConfigError {
			return c.bad("cors-origins", c.CORSOrigins, "must be comma-separated origins, each scheme://host[:port] with no path, e.g. https://panel.example.com")
		}},
		{cidrsInvalid(c.TrustedProxies), func() *ConfigError {
			return c.bad("trusted-proxies", c.TrustedProxies, "must be comma-separated CIDRs or addresses, e.g. 10.0.0.0/8,192.0.2.1")
		}},
		{cidrsInvalid(c.WebhookAllowCIDRs), func() *ConfigError {
			return c.bad("webhook-allow-cidrs", c.WebhookAllowCIDRs, "must be comma-separated CIDRs or addresses, e.g. 10.0.0.0/8,192.0.2.1")
		}},
		{c.AccessTTL <= 0, func() *ConfigError { return c.bad("access-ttl", c.AccessTTL, "must be positive") }},
		{c.RefreshTTL <= 0, func() *ConfigError { return c.bad("refresh-ttl", c.RefreshTTL, "must be positive") }},
		{c.JWTKey != "" && len(c.JWTKey) < 32, func() *ConfigError {
			e := c.bad("jwt-key", "", "must be at least 32 bytes (it has %d)", len(c.JWTKey))
			e.Value = "[redacted]"
			return e
		}},
		{c.BcryptCost < 4 || c.BcryptCost > 31, func() *ConfigError { return c.bad("bcrypt-cost", c.BcryptCost, "must be 4..31") }},
		{c.HashWorkers < 1 || c.HashWorkers > 64, func() *ConfigError { return c.bad("hash-workers", c.HashWorkers, "must be 1..64") }},
		{c.ShutdownTimeout <= 0, func() *ConfigError { return c.bad("shutdown-timeout", c.ShutdownTimeout, "must be positive") }},
		{c.SyncInterval < 0, func() *ConfigError {
			return c.bad("sync-interval", c.SyncInterval, "must not be negative (0: only on request)")
		}},
		{c.ScheduleGrace < 0, func() *ConfigError { return c.bad("schedule-grace", c.ScheduleGrace, "must not be negative") }},
		{c.ScheduleMinBackupInterval < 0, func() *ConfigError {
			return c.bad("schedule-min-backup-interval", c.ScheduleMinBackupInterval, "must not be negative")
		}},
		{c.ScheduleMinPowerInterval < 0, func() *ConfigError {
			return c.bad("schedule-min-power-interval", c.ScheduleMinPowerInterval, "must not be negative")
		}},
		{c.SchedulesPerTenant < 0, func() *ConfigError {
			return c.bad("schedules-per-tenant", c.SchedulesPerTenant, "must not be negative")
		}},
		{c.FaultyWindow <= 0, func() *ConfigError { return c.bad("faulty-window", c.FaultyWindow, "must be positive") }},
		{c.FaultyTaskFailures < 1, func() *ConfigError { return c.bad("faulty-task-failures", c.FaultyTaskFailures, "must be at least 1") }},
		{c.CrashLoopCount < 1, func() *ConfigError { return c.bad("crash-loop-count", c.CrashLoopCount, "must be at least 1") }},
		{c.CrashLoopWindow <= 0, func() *ConfigError { return c.bad("crash-loop-window", c.CrashLoopWindow, "must be positive") }},
		{c.FaultyHealthWindow <= 0, func() *ConfigError { return c.bad("faulty-health-window", c.FaultyHealthWindow, "must be positive") }},
		{c.HistoryInterval < 0, func() *ConfigError {
			return c.bad("history-interval", c.HistoryInterval, "must not be negative (0: never)")
		}},
		{c.NodeUsageThreshold <= 0 || c.NodeUsageThreshold > 1, func() *ConfigError {
			return c.bad("node-usage-threshold", c.NodeUsageThreshold, "must be in (0, 1]")
		}},
		{c.NodeUsageFor <= 0, func() *ConfigError { return c.bad("node-usage-for", c.NodeUsageFor, "must be positive") }},
		{c.OvercommitCPU < 1, func() *ConfigError { return c.bad("overcommit-cpu", c.OvercommitCPU, "must be at least 1") }},
		{c.OvercommitMemory < 1, func() *ConfigError { return c.bad("overcommit-memory", c.OvercommitMemory, "must be at least 1") }},
		{c.OvercommitDisk < 1, func() *ConfigError { return c.bad("overcommit-disk", c.OvercommitDisk, "must be at least 1") }},
		{c.HypervisorCheckInterval <= 0, func() *ConfigError {
			return c.bad("hypervisor-check-interval", c.HypervisorCheckInterval, "must be positive")
		}},
		{c.StoreCacheMB < 0, func() *ConfigError { return c.bad("store-cache-mb", c.StoreCacheMB, "must not be negative") }},
		{c.HeapFloorMB < 0, func() *ConfigError { return c.bad("heap-floor-mb", c.HeapFloorMB, "must not be negative (0: none)") }},
		{c.StoreMemTableMB < 8 || c.StoreMemTableMB > 256, func() *ConfigError {
			return c.bad("store-memtable-mb", c.StoreMemTableMB, "must be 8..256")
		}},
		{c.StoreIndexCacheMB < 1, func() *ConfigError { return c.bad("store-index-cache-mb", c.StoreIndexCacheMB, "must be at least 1") }},
		{c.SimNodes < 1, func() *ConfigError { return c.bad("sim-nodes", c.SimNodes, "must be at least 1") }},
		{c.SimMachines < 0, func() *ConfigError { return c.bad("sim-machines", c.SimMachines, "must not be negative") }},
		{c.SimLocations < 1 || c.SimLocations > maxSimLocations, func() *ConfigError {
			return c.bad("sim-locations", c.SimLocations, "must be 1..%d", maxSimLocations)
		}},
		{c.RateLoginAddr < 0, func() *ConfigError {
			return c.bad("rate-login-addr", c.RateLoginAddr, "must not be negative (0 disables)")
		}},
		// The delay is waited inside the request's 15 s, before the password hash.
		{c.LoginMaxDelay < 0 || c.LoginMaxDelay > 10*time.Second, func() *ConfigError {
			return c.bad("login-max-delay", c.LoginMaxDelay, "must be 0..10s")
		}},
		{c.ActorIdle <= 0, func() *ConfigError { return c.bad("actor-idle", c.ActorIdle, "must be positive") }},
		{c.ActorMaxLive < 1, func() *ConfigError { return c.bad("actor-max-live", c.ActorMaxLive, "must be at least 1") }},
		{c.RateIPv6Prefix < 1 || c.RateIPv6Prefix > 128, func() *ConfigError {
			return c.bad("rate-ipv6-prefix", c.RateIPv6Prefix, "must be 1..128")
		}},
		{c.HeaderTimeout <= 0, func() *ConfigError { return c.bad("header-timeout", c.HeaderTimeout, "must be positive") }},
		{c.IdleTimeout <= 0, func() *ConfigError { return c.bad("idle-timeout", c.IdleTimeout, "must be positive") }},
		{c.MaxConnsPerAddr < 0, func() *ConfigError {
			return c.bad("max-conns-per-addr", c.MaxConnsPerAddr, "must not be negative (0: no cap)")
		}},
		{c.MetricsAddr != "" && hostPortInvalid(c.MetricsAddr), func() *ConfigError {
			return c.bad("metrics-addr", c.MetricsAddr, "must be host:port, e.g. 127.0.0.1:9090")
		}},
		{endpointsInvalid(c.EtcdEndpoints), func() *ConfigError {
			return c.bad("etcd-endpoints", c.EtcdEndpoints, "must be comma-separated URLs, e.g. http://10.0.0.1:2379,http://10.0.0.2:2379")
		}},
		{c.EtcdEndpoints != "" && !strings.HasPrefix(c.EtcdPrefix, "/"), func() *ConfigError {
			return c.bad("etcd-prefix", c.EtcdPrefix, "must start with /")
		}},
		{c.EtcdEndpoints != "" && hostPortInvalid(c.ClusterAddr), func() *ConfigError {
			return c.bad("cluster-addr", c.ClusterAddr, "must be host:port in cluster mode (--etcd-endpoints is set), as the other members reach this one")
		}},
		{c.EtcdRequestTimeout < 100*time.Millisecond || c.EtcdRequestTimeout > time.Minute, func() *ConfigError {
			return c.bad("etcd-request-timeout", c.EtcdRequestTimeout, "must be 100ms..1m")
		}},
		{(c.EtcdCertFile == "") != (c.EtcdKeyFile == ""), func() *ConfigError {
			return c.bad("etcd-cert-file", c.EtcdCertFile, "needs --etcd-key-file too, and the other way round")
		}},
	}
	for _, ch := range checks {
		if ch.bad {
			return ch.err()
		}
	}
	return nil
}

func zapLevelInvalid(s string) bool {
	_, err := zapcore.ParseLevel(s)
	return err != nil
}

func cidrsInvalid(s string) bool {
	_, err := parseCIDRs(s)
	return err != nil
}

// endpointsInvalid reports a list of etcd URLs that is not one.
func endpointsInvalid(s string) bool {
	if s == "" {
		return false
	}
	for _, e := range strings.Split(s, ",") {
		u, err := url.Parse(strings.TrimSpace(e))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return true
		}
	}
	return false
}

// hostPortInvalid reports an address that is not host:port.
func hostPortInvalid(s string) bool {
	_, port, err := net.SplitHostPort(s)
	return err != nil || port == ""
}

// oidcProviders is the problem of the OpenID Connect providers file, if any.
func (c *Config) oidcProviders() error {
	_, err := sso.ReadFile(c.OIDCProvidersFile, c.PublicURL)
	return err
}

// mail is the SMTP settings as the mailer takes them.
func (c *Config) mail() mailer.Config {
	return mailer.Config{Host: c.SMTPHost, Port: c.SMTPPort, Security: mailer.Security(c.SMTPSecurity),
		User: c.SMTPUser, Password: c.SMTPPassword, From: c.SMTPFrom}
}

// originsInvalid reports a CORS origin list with an entry that is not an origin.
func originsInvalid(v string) bool {
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return true
		}
	}
	return false
}
