package app

import (
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/usage"
)

// The invoices' usage: a billing key reads a tenant's and a machine's, a read key
// does not (usage is the billing scope's); a tenant reads its own and not another's;
// a range that is not whole hours, or runs backwards, is a 400; hours not closed yet
// are gaps, never zeros.
func TestUsageRoutesScopes(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a, b := s.tenant(admin, "Invoiced", nil), s.tenant(admin, "Other payer", nil)
	m := s.provision(a.Token, smallMachine)
	hour := time.Now().UTC().Truncate(time.Hour)
	rng := "?from=" + hour.Add(-2*time.Hour).Format(time.RFC3339) + "&to=" + hour.Add(time.Hour).Format(time.RFC3339)
	billing := s.newKey(admin, map[string]any{"name": "billing", "scopes": []string{"billing"}})
	read := s.newKey(admin, map[string]any{"name": "dashboards", "scopes": []string{"read"}})

	for _, path := range []string{"/api/resources/tenants/" + a.ID + "/usage" + rng, "/api/virt/vms/" + m.ID + "/usage" + rng} {
		r := s.do(req{method: "GET", path: path, token: billing.Secret})
		expect(t, r, 200, "")
		var rep usage.UsageReport
		r.decode(t, &rep)
		if !rep.From.Equal(hour.Add(-2*time.Hour)) || !rep.To.Equal(hour.Add(time.Hour)) || rep.Gaps < 1 {
			t.Fatalf("GET %s: %+v; want the range asked for, with the hour not ended yet a gap", path, rep)
		}
		expect(t, s.do(req{method: "GET", path: path, token: read.Secret}), 403, "forbidden")
		expect(t, s.do(req{method: "GET", path: path, token: a.Token}), 403, "forbidden")
	}
	expect(t, s.do(req{method: "GET", path: "/api/client/usage" + rng, token: a.Token}), 200, "")
	expect(t, s.do(req{method: "GET", path: "/api/client/machines/" + m.ID + "/usage" + rng, token: a.Token}), 200, "")
	expect(t, s.do(req{method: "GET", path: "/api/client/machines/" + m.ID + "/usage" + rng, token: b.Token}), 404, "not_found")
	for _, bad := range []string{
		"?from=" + hour.Add(-time.Hour+time.Minute).Format(time.RFC3339) + "&to=" + hour.Format(time.RFC3339),
		"?from=" + hour.Format(time.RFC3339) + "&to=" + hour.Add(-time.Hour).Format(time.RFC3339),
	} {
		expect(t, s.do(req{method: "GET", path: "/api/client/usage" + bad, token: a.Token}), 400, "invalid_request")
	}
}

// The usage of closed hours is kept, not recomputed: read twice through the API it is
// the same, and the same again after a restart of the server on its data directory.
func TestUsageReadTwiceAndAfterRestart(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Billed", nil)
	s.provision(a.Token, smallMachine)
	hour := time.Now().UTC().Truncate(time.Hour)
	// Close the hour the machine was made in, as the hour job does once it ended.
	if err := s.app.sys.Usage.Close(t.Context(), hour.Add(time.Hour+time.Minute)); err != nil {
		t.Fatal(err)
	}
	path := "/api/resources/tenants/" + a.ID + "/usage?from=" + hour.Add(-time.Hour).Format(time.RFC3339) +
		"&to=" + hour.Add(time.Hour).Format(time.RFC3339)
	read := func() string {
		r := s.do(req{method: "GET", path: path, token: admin})
		expect(t, r, 200, "")
		var rep usage.UsageReport
		r.decode(t, &rep)
		if len(rep.Lines) != 1 || rep.Totals.Hours <= 0 {
			t.Fatalf("usage: %+v; want the machine's line for its hour", rep)
		}
		return string(r.Body)
	}
	first := read()
	if again := read(); again != first {
		t.Fatalf("read twice:\n%s\n%s\nwant the same", first, again)
	}
	s.restart()
	if after := read(); after != first {
		t.Fatalf("after a restart:\n%s\nwant what was read before it:\n%s", after, first)
	}
}
