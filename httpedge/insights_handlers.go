package httpedge

import (
	"strconv"
	"time"

	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/apierr"
)

// insightRoutes are the operator's insights: faulty deployments and the cluster forecast.
func (s *Server) insightRoutes() []Route {
	tag := "monitoring"
	return []Route{
		{Method: "GET", Path: "/api/monitoring/insights/faulty-deployments", Access: AdminOnly, Handler: s.faultyDeployments, Tag: tag,
			Summary:     "Machines whose deployment looks faulty",
			Description: "Machines whose deployment failed, that crash-loop, fail tasks repeatedly or fail their health checks right after deployment. For operators (role admin); other users get 403.",
			Reply:       monitoring.FaultyDeployments{}},
		{Method: "GET", Path: "/api/monitoring/insights/cluster-forecast", Access: AdminOnly, Handler: s.clusterForecast, Tag: tag,
			Summary: "Daily cpu, memory and disk usage, its least-squares trend, and the day it reaches capacity",
			Reply:   monitoring.ClusterForecast{},
			Query:   map[string]string{"horizon_days": "how far ahead to look for exhaustion, 1..365 days (default 30)"}},
	}
}

func (s *Server) faultyDeployments(c *Call) (any, error) {
	return s.svc.Insights.FaultyDeployments(c.Context())
}

func (s *Server) clusterForecast(c *Call) (any, error) {
	horizon := 30
	if v := c.Query("horizon_days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > monitoring.MaxForecastHorizon {
			return nil, apierr.Invalid(apierr.Field("horizon_days", "must be a whole number of days, 1..%d", monitoring.MaxForecastHorizon))
		}
		horizon = n
	}
	return s.svc.History.Forecast(c.Context(), horizon, time.Now())
}
