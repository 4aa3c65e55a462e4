package bench

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Load models.
const (
	// ModelClosed keeps Connections requests in flight, each sent as soon as the
	// previous answer on its connection arrives: it measures capacity.
	ModelClosed = "closed"
	// ModelOpen sends at a constant Rate whatever the answers do, and measures each
	// latency from the moment the request was due: it measures what users see at a
	// given load, queueing included (coordinated omission corrected).
	ModelOpen = "open"
)

// Options configure one run. Zero values take the defaults of DefaultOptions, except
// where zero means something: Warmup, Machines, MaxRequests, Seed and Procs stay 0.
type Options struct {
	// BaseURL is the server, e.g. http://127.0.0.1:8080, or several members of one
	// cluster separated by commas, e.g. http://10.0.0.1:8080,http://10.0.0.2:8080:
	// the connections are then dealt out over them round-robin (worker i uses URL i
	// mod n) and the report adds a breakdown per URL. The setup and cleanup talk to the
	// first; the tokens they obtain are used on every URL, as a cluster promises.
	BaseURL string
	// Scenario is one of Scenarios().
	Scenario string
	// Model is ModelClosed or ModelOpen.
	Model string
	// Rate is the open model's arrival rate in requests per second.
	Rate float64
	// Connections is the number of connections (and workers).
	Connections int
	// Duration is the measured phase; Warmup runs before it and is discarded.
	Duration time.Duration
	Warmup   time.Duration
	// Timeout bounds each request.
	Timeout time.Duration
	// MaxRequests ends the measured phase early after this many requests (0: no cap).
	MaxRequests int64
	// Seed makes the choice of requests repeatable.
	Seed uint64
	// Procs, when positive, is GOMAXPROCS while the load runs (restored after). On
	// one processor Go's scheduler costs about 10% less CPU per request (as little as
	// wrk), but a closed-model run against a server on the same two cores turns
	// answers around more slowly and reaches less; 0 leaves GOMAXPROCS alone, which
	// is also right when the server runs in the same process, as in tests.
	Procs int

	// Tenants is the number of tenants (each with one user) the read and write
	// scenarios create; Machines the machines each of them gets.
	Tenants  int
	Machines int
	// TemplateID is the OS template of created machines; empty picks the first the
	// server lists.
	TemplateID string
	// Mix weighs the scenarios of "mix", e.g. "read=70,power=10,write=20,login=0".
	Mix string
	// ReadWeights weighs the requests of "read": "list=40,machine=40,overview=20".
	ReadWeights string
	// PowerActions are the actions of "power", e.g. "reboot,start,stop".
	PowerActions string
	// PowerMachines caps the machines "power" spreads its actions over.
	PowerMachines int
	// LoginEmail and LoginPassword are the account "login" storms; when empty it
	// rotates over LoginEmails unknown addresses with a wrong password, so that every
	// answer the limiter lets through is 401 invalid_credentials.
	LoginEmail    string
	LoginPassword string
	LoginEmails   int

	// AdminEmail and AdminPassword log in the operator that sets scenarios up.
	AdminEmail    string
	AdminPassword string

	// SetupTimeout and CleanupTimeout bound the phases around the run.
	SetupTimeout   time.Duration
	CleanupTimeout time.Duration
	// Keep skips the cleanup: what setup created stays on the server.
	Keep bool

	// Progress, when set, receives a live progress line once per second.
	Progress io.Writer
}

// DefaultOptions are the defaults of `vmplane bench`.
func DefaultOptions() Options {
	return Options{
		BaseURL:        "http://127.0.0.1:8080",
		Scenario:       "health",
		Model:          ModelClosed,
		Rate:           1000,
		Connections:    32,
		Duration:       10 * time.Second,
		Warmup:         2 * time.Second,
		Timeout:        10 * time.Second,
		Seed:           1,
		Tenants:        4,
		Machines:       2,
		Mix:            "read=70,power=10,write=20,login=0",
		ReadWeights:    "list=40,machine=40,overview=20",
		PowerActions:   "reboot,start,stop",
		PowerMachines:  100,
		LoginEmails:    100,
		AdminEmail:     "admin@localhost",
		SetupTimeout:   2 * time.Minute,
		CleanupTimeout: 10 * time.Minute,
	}
}

// withDefaults fills zero values from DefaultOptions.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.BaseURL == "" {
		o.BaseURL = d.BaseURL
	}
	if o.Scenario == "" {
		o.Scenario = d.Scenario
	}
	if o.Model == "" {
		o.Model = d.Model
	}
	if o.Rate == 0 {
		o.Rate = d.Rate
	}
	if o.Connections == 0 {
		o.Connections = d.Connections
	}
	if o.Duration == 0 {
		o.Duration = d.Duration
	}
	if o.Timeout == 0 {
		o.Timeout = d.Timeout
	}
	if o.Tenants == 0 {
		o.Tenants = d.Tenants
	}
	if o.Mix == "" {
		o.Mix = d.Mix
	}
	if o.ReadWeights == "" {
		o.ReadWeights = d.ReadWeights
	}
	if o.PowerActions == "" {
		o.PowerActions = d.PowerActions
	}
	if o.PowerMachines == 0 {
		o.PowerMachines = d.PowerMachines
	}
	if o.LoginEmails == 0 {
		o.LoginEmails = d.LoginEmails
	}
	if o.AdminEmail == "" {
		o.AdminEmail = d.AdminEmail
	}
	if o.SetupTimeout == 0 {
		o.SetupTimeout = d.SetupTimeout
	}
	if o.CleanupTimeout == 0 {
		o.CleanupTimeout = d.CleanupTimeout
	}
	return o
}

// Validate reports what is wrong with the options (after defaults), every problem at
// once; Run checks the same.
func (o Options) Validate() error { return o.withDefaults().validate() }

// validate checks the options after defaults are applied.
func (o Options) validate() error {
	var errs []error
	ts, err := parseTargets(o.BaseURL)
	if err != nil {
		errs = append(errs, err)
	} else if len(ts) > o.Connections && o.Connections >= 1 {
		errs = append(errs, fmt.Errorf("--connections %d leaves some of the %d URLs without a connection: give at least one per URL", o.Connections, len(ts)))
	}
	if !knownScenario(o.Scenario) {
		errs = append(errs, fmt.Errorf("unknown scenario %q (known: %s)", o.Scenario, strings.Join(Scenarios(), ", ")))
	}
	if o.Model != ModelClosed && o.Model != ModelOpen {
		errs = append(errs, fmt.Errorf("unknown model %q (known: closed, open)", o.Model))
	}
	if o.Rate < 0 || (o.Model == ModelOpen && o.Rate <= 0) {
		errs = append(errs, errors.New("--rate must be positive"))
	}
	if o.Connections < 1 || o.Connections > 100000 {
		errs = append(errs, errors.New("--connections must be 1..100000"))
	}
	if o.Duration <= 0 || o.Warmup < 0 || o.Timeout <= 0 {
		errs = append(errs, errors.New("--duration and --timeout must be positive, --warmup not negative"))
	}
	if o.Duration+o.Warmup > 24*time.Hour {
		errs = append(errs, errors.New("--duration plus --warmup must not exceed 24h"))
	}
	if o.Timeout > time.Minute {
		errs = append(errs, errors.New("--timeout must not exceed 1m (the latency histograms end at 60 s)"))
	}
	if o.Procs < 0 {
		errs = append(errs, errors.New("--procs must not be negative"))
	}
	if o.MaxRequests < 0 {
		errs = append(errs, errors.New("--requests must not be negative"))
	}
	if o.Tenants < 1 || o.Tenants > 10000 || o.Machines < 0 || o.Machines > 1000 {
		errs = append(errs, errors.New("--tenants must be 1..10000 and --machines 0..1000"))
	}
	if o.PowerMachines < 1 || o.LoginEmails < 1 {
		errs = append(errs, errors.New("--power-machines and --login-emails must be positive"))
	}
	if (o.LoginEmail == "") != (o.LoginPassword == "") {
		errs = append(errs, errors.New("--login-email and --login-password go together"))
	}
	if _, err := ParseWeights(o.Mix, mixable()); err != nil {
		errs = append(errs, fmt.Errorf("--mix: %w", err))
	}
	if _, err := ParseWeights(o.ReadWeights, readOps); err != nil {
		errs = append(errs, fmt.Errorf("--read-weights: %w", err))
	}
	if _, err := parseActions(o.PowerActions); err != nil {
		errs = append(errs, fmt.Errorf("--power-actions: %w", err))
	}
	return errors.Join(errs...)
}

// Weight is one named weight of a weighted choice.
type Weight struct {
	Name   string
	Weight int
}

// ParseWeights reads "a=70,b=30" into weights in the order of known, keeping the
// zero ones. Every name must be one of known, no name twice, weights 0..1000000, and
// at least one weight positive. Names left out weigh 0.
func ParseWeights(s string, known []string) ([]Weight, error) {
	got := make(map[string]int, len(known))
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return nil, fmt.Errorf("%q: want name=weight", part)
		}
		if !contains(known, name) {
			return nil, fmt.Errorf("unknown name %q (known: %s)", name, strings.Join(known, ", "))
		}
		if _, dup := got[name]; dup {
			return nil, fmt.Errorf("%q given twice", name)
		}
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || n < 0 || n > 1000000 {
			return nil, fmt.Errorf("%q: the weight must be an integer 0..1000000", part)
		}
		got[name] = n
	}
	total := 0
	out := make([]Weight, 0, len(known))
	for _, name := range known {
		out = append(out, Weight{Name: name, Weight: got[name]})
		total += got[name]
	}
	if total == 0 {
		return nil, fmt.Errorf("%q: at least one weight must be positive", s)
	}
	return out, nil
}

// chooser picks an index with probability proportional to its weight, from a table
// built once, so that a pick costs one random number and one lookup.
type chooser struct {
	table []uint8
}

// newChooser builds the table of weights; indexes with weight 0 are never picked.
// At most 256 choices.
func newChooser(weights []int) chooser {
	total := 0
	for _, w := range weights {
		total += w
	}
	// Scale to at most 10000 slots: enough resolution for percentages with decimals.
	scale := 1.0
	if total > 10000 {
		scale = 10000 / float64(total)
	}
	var table []uint8
	for i, w := range weights {
		n := int(float64(w)*scale + 0.5)
		if w > 0 && n == 0 {
			n = 1
		}
		for range n {
			table = append(table, uint8(i))
		}
	}
	return chooser{table: table}
}

// pick maps a random number to an index.
func (c chooser) pick(r uint64) int {
	return int(c.table[r%uint64(len(c.table))])
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// powerActions are the actions API.md allows on POST /api/virt/vms/:id/actions/:action.
var powerActions = []string{"start", "stop", "shutdown", "reboot", "reset", "suspend", "resume"}

func parseActions(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if !contains(powerActions, a) {
			return nil, fmt.Errorf("unknown action %q (known: %s)", a, strings.Join(powerActions, ", "))
		}
		if contains(out, a) {
			return nil, fmt.Errorf("action %q given twice", a)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("no action")
	}
	return out, nil
}
