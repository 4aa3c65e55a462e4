package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// faultyDeployments is the answer of FaultyDeployments.
type faultyDeployments struct {
	Items []FaultyDeployment `json:"items"`
}

// Timeframes of a usage graph.
const (
	TimeframeHour  = "hour"
	TimeframeDay   = "day"
	TimeframeWeek  = "week"
	TimeframeMonth = "month"
	TimeframeYear  = "year"
)

// MonitoringOverview reads the operators' summary of nodes, machines, open alerts,
// health checks and capacity (operators).
func (c *Client) MonitoringOverview(ctx context.Context) (*MonitoringOverview, error) {
	return getRecord[MonitoringOverview](ctx, c, "/api/monitoring/overview")
}

// FaultyDeployments lists the machines in trouble, the newest problems first
// (operators).
func (c *Client) FaultyDeployments(ctx context.Context) ([]FaultyDeployment, error) {
	var out faultyDeployments
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/monitoring/insights/faulty-deployments", out: &out})
	return out.Items, err
}

// ClusterForecast reads the cluster's usage history and when each resource reaches
// capacity within horizonDays (1..365; 0: the server's default) (operators).
func (c *Client) ClusterForecast(ctx context.Context, horizonDays int) (*ClusterForecast, error) {
	q := url.Values{}
	if horizonDays != 0 {
		q.Set("horizon_days", strconv.Itoa(horizonDays))
	}
	return callFor[ClusterForecast](ctx, c, http.MethodGet, "/api/monitoring/insights/cluster-forecast", q, nil)
}

// UsageTrends reads the tenant's daily consumption over the last days (0: the
// server's default), computed from its machines' usage graphs.
func (c *Client) UsageTrends(ctx context.Context, days int) (*Trends, error) {
	q := c.clientQuery()
	if days != 0 {
		q.Set("days", strconv.Itoa(days))
	}
	return callFor[Trends](ctx, c, http.MethodGet, "/api/client/usage-trends", q, nil)
}

func timeframeQuery(tf string) url.Values {
	q := url.Values{}
	if tf != "" {
		q.Set("timeframe", tf)
	}
	return q
}

// MachineUsage reads a machine's usage graph over the timeframe (TimeframeHour, ...;
// "": the server's default) (operators).
func (c *Client) MachineUsage(ctx context.Context, id, timeframe string) (*UsageGraph, error) {
	return callFor[UsageGraph](ctx, c, http.MethodGet, "/api/virt/vms/"+esc(id)+"/usage-graphs", timeframeQuery(timeframe), nil)
}

// NodeUsage reads a node's usage graph over the timeframe (operators).
func (c *Client) NodeUsage(ctx context.Context, node, timeframe string) (*UsageGraph, error) {
	return callFor[UsageGraph](ctx, c, http.MethodGet, "/api/virt/nodes/"+esc(node)+"/usage-graphs", timeframeQuery(timeframe), nil)
}

// ClusterUsage reads the cluster's usage graph over the timeframe (operators).
func (c *Client) ClusterUsage(ctx context.Context, timeframe string) (*ClusterUsage, error) {
	return callFor[ClusterUsage](ctx, c, http.MethodGet, "/api/virt/cluster/usage-graphs", timeframeQuery(timeframe), nil)
}
