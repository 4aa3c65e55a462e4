package httpedge

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/vmplane/vmplane/actors/limiter"
)

// metrics are the figures exported at /metrics. client_golang is already linked in
// through protoactor, so it costs no new dependency.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	refused  *prometheus.CounterVec
	handler  fasthttp.RequestHandler
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vmplane_http_requests_total", Help: "HTTP requests by route, method and status.",
	}, []string{"route", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "vmplane_http_request_duration_seconds", Help: "HTTP request latency by route.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vmplane_ratelimit_refused_total", Help: "Requests refused by a rate limit, by bucket; connections over the per-address cap as bucket connections.",
	}, []string{"bucket"})
	// Every bucket is exported from the start, so dashboards see zeros, not gaps.
	for _, b := range []string{limiter.BucketGlobal, limiter.BucketAuth, limiter.BucketLogin, limiter.BucketLoginAddr, bucketConnections} {
		m.refused.WithLabelValues(b)
	}
	m.reg.MustRegister(m.requests, m.latency, m.refused,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if s.svc.System != nil {
		store := s.svc.System.Store()
		gauge := func(name, help string, f func() float64) {
			m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
		}
		counter := func(name, help string, f func() float64) {
			m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f))
		}
		counter("vmplane_store_commits_total", "Durable commits acknowledged.", func() float64 { return float64(store.Stats().Commits) })
		counter("vmplane_store_groups_total", "Synced transactions written by the group-commit writer.", func() float64 { return float64(store.Stats().Groups) })
		counter("vmplane_store_commit_errors_total", "Commits that failed.", func() float64 { return float64(store.Stats().CommitErrors) })
		gauge("vmplane_store_pending_commits", "Commits waiting for the writer.", func() float64 { return float64(store.Stats().PendingWrites) })
		gauge("vmplane_store_lsm_bytes", "Size of the LSM tree.", func() float64 { return float64(store.Stats().LSMBytes) })
		gauge("vmplane_store_vlog_bytes", "Size of the value log.", func() float64 { return float64(store.Stats().VLogBytes) })
		gauge("vmplane_store_compaction_score", "Highest compaction score of the store's levels: 1 or more means compactions are pending.", func() float64 { return store.Stats().CompactionScore })
		if ms := s.svc.Machines; ms != nil {
			counter("vmplane_usage_counter_retries_total", "Machine writes made again because another write moved their tenant's usage counter.",
				func() float64 { return float64(ms.CounterRetries()) })
		}
		if cs, ok := store.(interface{ Collectors() []prometheus.Collector }); ok {
			m.reg.MustRegister(cs.Collectors()...)
		}
		if cl := s.opts.Cluster; cl != nil {
			gauge("vmplane_cluster_members", "Live members of the cluster, this one included.", func() float64 { return float64(cl.Stats().Members) })
			gauge("vmplane_cluster_owned_entities", "Entities this member holds.", func() float64 { return float64(cl.Stats().Owned) })
			counter("vmplane_cluster_claims_total", "Entities this member claimed.", func() float64 { return float64(cl.Stats().Claims) })
			counter("vmplane_cluster_takeovers_total", "Entities this member claimed that a departed member held.", func() float64 { return float64(cl.Stats().Takeovers) })
			gauge("vmplane_cluster_read_lease", "1 while this member holds its read lease (serves its caches without catching up with etcd).", func() float64 {
				if cl.Stats().ReadLease {
					return 1
				}
				return 0
			})
			counter("vmplane_cluster_read_lease_releases_total", "Times this member gave its read lease up because its watch lagged.",
				func() float64 { return float64(cl.Stats().ReadLeaseReleases) })
		}
		m.reg.MustRegister(&actorCollector{s: s, desc: prometheus.NewDesc("vmplane_actors_live",
			"Live entity actors by kind.", []string{"kind"}, nil)})
	}
	m.handler = fasthttpadaptor.NewFastHTTPHandler(promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	return m
}

// forRoute is route's series, made once when the routes are set up, so that a request
// only finds them (routeMetrics).
func (m *metrics) forRoute(route string) *routeMetrics {
	return &routeMetrics{route: route, requests: m.requests, latency: m.latency.WithLabelValues(route)}
}

// routeMetrics are one route's series. WithLabelValues hashes its labels and takes its
// vector's lock on every call, after a status formatted and a method copied into
// strings: per request, that was the largest of the edge's own costs on a cached read
// (BENCHMARKS.md, issue 33). A route's latency series is found once; its request
// counters, one per method and status it has answered, are kept in a short list read
// without a lock and copied when a pair is new.
type routeMetrics struct {
	route    string
	requests *prometheus.CounterVec
	latency  prometheus.Observer

	mu     sync.Mutex // held to add to counts
	counts atomic.Pointer[[]methodStatus]
}

// methodStatus is the request counter of one method and status.
type methodStatus struct {
	method string
	status int
	c      prometheus.Counter
}

// observe counts a request of the route and its latency.
func (r *routeMetrics) observe(method []byte, status int, d time.Duration) {
	r.latency.Observe(d.Seconds())
	r.counter(metricMethod(method), status).Inc()
}

// counter is the request counter of method and status, made on first use.
func (r *routeMetrics) counter(method string, status int) prometheus.Counter {
	if c := findCount(r.counts.Load(), method, status); c != nil {
		return c
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.counts.Load()
	if c := findCount(cur, method, status); c != nil {
		return c
	}
	var next []methodStatus
	if cur != nil {
		next = append(next, *cur...)
	}
	c := r.requests.WithLabelValues(r.route, method, strconv.Itoa(status))
	next = append(next, methodStatus{method: method, status: status, c: c})
	r.counts.Store(&next)
	return c
}

// findCount is the counter of method and status in list, or nil.
func findCount(list *[]methodStatus, method string, status int) prometheus.Counter {
	if list == nil {
		return nil
	}
	for _, ms := range *list {
		if ms.status == status && ms.method == method {
			return ms.c
		}
	}
	return nil
}

// httpMethods are the methods HTTP defines, each counted under its own name.
var httpMethods = []string{fasthttp.MethodGet, fasthttp.MethodHead, fasthttp.MethodPost, fasthttp.MethodPut,
	fasthttp.MethodPatch, fasthttp.MethodDelete, fasthttp.MethodOptions, fasthttp.MethodConnect, fasthttp.MethodTrace}

// metricMethod is the method label of a request: one of httpMethods, any other as
// "OTHER", so that a client cannot make series without end (a method is any token to
// fasthttp). The names are the constants: no copy per request.
func metricMethod(m []byte) string {
	for _, name := range httpMethods {
		if string(m) == name {
			return name
		}
	}
	return "OTHER"
}

func (m *metrics) limited(bucket string) { m.refused.WithLabelValues(bucket).Inc() }

// actorCollector reports the live entities of each kind at scrape time.
type actorCollector struct {
	s    *Server
	desc *prometheus.Desc
}

func (c *actorCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *actorCollector) Collect(ch chan<- prometheus.Metric) {
	for kind, n := range c.s.svc.System.Kinds() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), kind)
	}
}
