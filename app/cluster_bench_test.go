package app

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/vmplane/vmplane/internal/etcdtest"
)

// BenchmarkClusterDurableWrites measures durable writes per second in one run, with
// BenchmarkFirewallRuleWrites' load (64 clients over 16 tenants, each keeping 16
// rules): through one single node on Badger, through three cluster members on one
// embedded etcd (clients spread over the members, as a load balancer spreads them),
// and etcd's own put rate from 64 clients, each put as durable as a write's.
//
//	go test -run '^$' -bench ClusterDurableWrites -benchtime 10s ./app/
func BenchmarkClusterDurableWrites(b *testing.B) {
	b.Run("single-node", func(b *testing.B) {
		runRuleWrites(b, []*benchEdge{startBenchFleet(b, 0)}, 64, ruleWindowClient)
	})
	b.Run("cluster-3", func(b *testing.B) {
		srv := etcdtest.Start(b)
		var edges []*benchEdge
		for i := 0; i < 3; i++ {
			edges = append(edges, startBenchFleet(b, 0, func(c *Config) {
				c.EtcdEndpoints = strings.Join(srv.Endpoints(), ",")
				c.NodeName = fmt.Sprintf("m%d", i)
				c.ClusterAddr = "127.0.0.1:0"
			}))
		}
		runRuleWrites(b, edges, 64, ruleWindowClient)
	})
	b.Run("etcd-put", func(b *testing.B) {
		srv := etcdtest.Start(b)
		cli, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		defer cli.Close()
		value := strings.Repeat("x", len(ruleBody))
		var n atomic.Int64
		procs := runtime.GOMAXPROCS(0)
		b.SetParallelism((64 + procs - 1) / procs)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				key := fmt.Sprintf("/bench/%d", n.Add(1)%1024)
				if _, err := cli.Put(context.Background(), key, value); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
	})
}
