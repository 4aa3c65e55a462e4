package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/counters"
	"github.com/vmplane/vmplane/actors/machines/nodestate"
	"github.com/vmplane/vmplane/actors/machines/obsdigest"
	"github.com/vmplane/vmplane/cluster"
	"github.com/vmplane/vmplane/httpedge"
	"github.com/vmplane/vmplane/persistence"
)

// Cluster mode (VMPLANE_ETCD_ENDPOINTS set): the store is etcd, the process joins the
// cluster as a member under its node name, listens for the other members on its
// cluster address, and every write it makes is fenced by its membership lease.

// member is what a cluster member holds beyond a single node.
type member struct {
	cluster *cluster.Cluster
	store   *persistence.Etcd
	ln      net.Listener
	// events carries the event bus's events between the members.
	events *cluster.EventRelay
	// lost is closed when the member lost its lease: it must exit and restart.
	lost chan struct{}
}

// joinCluster opens the etcd store and joins the cluster.
func (a *App) joinCluster(cfg Config, log *zap.Logger) (*member, error) {
	tlsConfig, err := etcdTLS(cfg)
	if err != nil {
		return nil, err
	}
	var endpoints []string
	for _, e := range strings.Split(cfg.EtcdEndpoints, ",") {
		endpoints = append(endpoints, strings.TrimSpace(e))
	}
	store, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: endpoints, Prefix: cfg.EtcdPrefix, TLS: tlsConfig,
		RequestTimeout: cfg.EtcdRequestTimeout, Logger: log.Named("store")})
	if err != nil {
		return nil, fmt.Errorf("etcd %s: %w", cfg.EtcdEndpoints, err)
	}
	m := &member{store: store, lost: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			m.close()
		}
	}()
	name := cfg.NodeName
	if name == "" {
		if name, err = os.Hostname(); err != nil {
			return nil, fmt.Errorf("--node-name is empty and the host name is unknown: %w", err)
		}
	}
	if m.ln, err = net.Listen("tcp", cfg.ClusterAddr); err != nil {
		return nil, fmt.Errorf("--cluster-addr %s: %w", cfg.ClusterAddr, err)
	}
	addr := cfg.ClusterAddr
	if _, port, _ := net.SplitHostPort(addr); port == "0" {
		// Port 0 picks a free port (tests): the others reach the one picked.
		addr = m.ln.Addr().String()
	}
	// Join calls Lost at most once.
	m.cluster, err = cluster.Join(cluster.Options{Client: store.Client(), Prefix: store.Prefix(), Name: name, Addr: addr,
		Log: log.Named("cluster"), Lost: func() { close(m.lost) }, Maintains: []string{counters.Feature, nodestate.Feature, obsdigest.Feature, cluster.ReadLeaseFeature}})
	if err != nil {
		return nil, err
	}
	store.SetFence(m.cluster.MemberKey(), m.cluster.Lease(), m.cluster.Fenced)
	// Every write waits for the members holding read leases; this one holds its own
	// once it serves the others (Serve).
	store.SetReaders(m.cluster.StartReadLease(store))
	// The event bus's relay, which the actors' bus closes.
	if m.events, err = cluster.NewEventRelay(cluster.EventRelayOptions{Client: store.Client(), Prefix: store.Prefix(),
		Name: name, Log: log.Named("events")}); err != nil {
		return nil, err
	}
	ok = true
	return m, nil
}

// openStore opens the store: Badger in the data directory on a single node, etcd for
// a cluster member (which joins the cluster on the way).
func (a *App) openStore(cfg Config, log *zap.Logger) (persistence.Store, error) {
	if cfg.EtcdEndpoints != "" {
		m, err := a.joinCluster(cfg, log)
		if err != nil {
			return nil, err
		}
		a.member = m
		return m.store, nil
	}
	return persistence.Open(persistence.Options{Dir: cfg.DataDir, Logger: log.Named("store"), BlockCacheSize: int64(cfg.StoreCacheMB) << 20,
		MemTableSize: int64(cfg.StoreMemTableMB) << 20, IndexCacheSize: int64(cfg.StoreIndexCacheMB) << 20,
		NoGroupCommit: cfg.StoreSyncEach, MinFreeBytes: int64(cfg.StoreMinFreeMB) << 20, FreeSpace: cfg.StoreFreeSpace})
}

// placement is the actors' placement: the cluster's, or none on a single node.
func (a *App) placement() kit.Placement {
	if a.member == nil {
		return nil
	}
	return a.member.cluster
}

// serveMembers, on a cluster member, starts answering the other members' requests and
// revives the entities of every member that leaves.
func (a *App) serveMembers() {
	if a.member == nil {
		return
	}
	a.member.cluster.Serve(a.sys.Runtime(), a.member.ln)
	sys := a.sys
	bg := a.bg
	a.member.cluster.OnMemberLeft(func(ctx context.Context, _ kit.Member) {
		if ctx.Err() != nil || bg.Err() != nil {
			return // shutting down
		}
		if err := sys.Revive(ctx); err != nil {
			a.log.Warn("could not wake the entities of a member that left; the next departure or restart tries again", zap.Error(err))
		}
	})
}

// maintained, on a cluster member, reports whether every member keeps what a feature
// names (machines.Deps.Maintained); nil on a single node.
func (a *App) maintained() func(string) (bool, uint64) {
	if a.member == nil {
		return nil
	}
	return a.member.cluster.Maintained
}

// eventRelay is the event bus's relay on a cluster member, nil on a single node.
func (a *App) eventRelay() events.Relay {
	if a.member == nil {
		return nil
	}
	return a.member.events
}

// membership is what the edge reports of the cluster, nil on a single node.
func (a *App) membership() httpedge.Membership {
	if a.member == nil {
		return nil
	}
	return a.member.cluster
}

// Lost is closed when this member lost its cluster lease: it can no longer write and
// must exit, so that its supervisor restarts it as a new member. Never closed on a
// single node.
func (a *App) Lost() <-chan struct{} {
	if a.member == nil {
		return nil
	}
	return a.member.lost
}

// close leaves the cluster (releasing every entity this member held at once) and
// closes the store.
func (m *member) close() error {
	if m.events != nil {
		m.events.Close() // closed already by the actors' bus, unless they did not start
	}
	if m.cluster != nil {
		m.cluster.Leave()
	}
	if m.ln != nil {
		// Leave closed it if the member served; a start that failed before never did.
		m.ln.Close()
	}
	return m.store.Close()
}

// etcdTLS is the TLS configuration to etcd from the settings, or nil for plain HTTP.
func etcdTLS(cfg Config) (*tls.Config, error) {
	if cfg.EtcdCAFile == "" && cfg.EtcdCertFile == "" {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.EtcdCAFile != "" {
		pem, err := os.ReadFile(cfg.EtcdCAFile)
		if err != nil {
			return nil, &ConfigError{Flag: "etcd-ca-file", Env: "VMPLANE_ETCD_CA_FILE", Value: cfg.EtcdCAFile, Allowed: "cannot read it: " + err.Error()}
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, &ConfigError{Flag: "etcd-ca-file", Env: "VMPLANE_ETCD_CA_FILE", Value: cfg.EtcdCAFile, Allowed: "holds no PEM certificate"}
		}
	}
	if cfg.EtcdCertFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.EtcdCertFile, cfg.EtcdKeyFile)
		if err != nil {
			return nil, &ConfigError{Flag: "etcd-cert-file", Env: "VMPLANE_ETCD_CERT_FILE", Value: cfg.EtcdCertFile,
				Allowed: "with --etcd-key-file must be a PEM certificate and its key: " + err.Error()}
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// ErrLeaseLost is why a member stops on its own (App.Lost).
var ErrLeaseLost = errors.New("this member lost its cluster lease (it was paused or cut off from etcd longer than the lease); it exits so that its supervisor restarts it as a new member")
