package app_test

import (
	"fmt"
	"net/url"
	"strings"
)

// What TestUpgradeMixedVersionCluster checks once every member runs this tree: each
// write acknowledged during the roll, by whichever release, is there as it was written,
// to its tenant and to no other.

// check reads every acknowledged record back through the members of this tree (the
// balancer's pool after the roll) and fails the test on anything missing, changed,
// applied twice or visible to another tenant, and on a session that did not survive.
func (w *upgradeWorkload) check() {
	t := w.t
	t.Helper()
	for i, ten := range w.tenants {
		other := w.tenants[(i+1)%len(w.tenants)]
		w.checkRules(ten, other)
		for _, m := range ten.machines {
			var got machineView
			if w.read(ten, other, "/api/resources/machines/"+m.id, &got) && (got.Status != m.status || got.CPUCores != m.cpus || got.Name != m.name) {
				t.Errorf("%s: machine %s is %s with %d cores (name %q); want %s with %d (name %q), as its last task left it; its operations:\n%s\nits tasks:\n%s",
					ten.name, m.id, got.Status, got.CPUCores, got.Name, m.status, m.cpus, m.name, strings.Join(m.history, "\n"), w.tasksOf(ten, m.id))
			}
		}
		for _, p := range ten.powers {
			var got struct {
				MachineID string `json:"machine_id"`
				Action    string `json:"action"`
				Cron      string `json:"cron"`
			}
			if w.read(ten, other, "/api/resources/power-schedules/"+p.id, &got) && (got.MachineID != p.machine || got.Action != p.action || got.Cron != p.cron) {
				t.Errorf("%s: power schedule %s is %+v; want machine %s, %s at %q", ten.name, p.id, got, p.machine, p.action, p.cron)
			}
		}
		for _, b := range ten.backups {
			var got struct {
				MachineID string `json:"machine_id"`
				Cron      string `json:"cron"`
				Retention int    `json:"retention"`
			}
			if w.read(ten, other, "/api/resources/backup-schedules/"+b.id, &got) && (got.MachineID != b.machine || got.Cron != b.cron || got.Retention != b.retention) {
				t.Errorf("%s: backup schedule %s is %+v; want machine %s at %q keeping %d", ten.name, b.id, got, b.machine, b.cron, b.retention)
			}
		}
		for _, ch := range ten.checks {
			var got struct{ Name, Target string }
			if w.read(ten, other, "/api/resources/health-checks/"+ch.id, &got) && (got.Name != ch.name || got.Target != ch.target) {
				t.Errorf("%s: health check %s is %+v; want %q on %s", ten.name, ch.id, got, ch.name, ch.target)
			}
		}
		for _, id := range ten.tasks {
			var got struct{ Status string }
			if w.read(ten, other, "/api/tasks/"+id, &got) && got.Status != "succeeded" {
				t.Errorf("%s: task %s is %q; want succeeded, as it was seen to end", ten.name, id, got.Status)
			}
		}
		w.checkSessions(ten)
		t.Logf("%s: %d rules, %d machines, %d power and %d backup schedules, %d health checks and %d tasks read back",
			ten.name, len(ten.rules), len(ten.machines), len(ten.powers), len(ten.backups), len(ten.checks), len(ten.tasks))
	}
}

// read GETs path as owner (200, decoded into v) and as other (404, as for an id that
// does not exist), and reports whether owner's answer was read.
func (w *upgradeWorkload) read(owner, other *loadTenant, path string, v any) bool {
	t := w.t
	t.Helper()
	c := call{method: "GET", path: path, token: other.session()}
	a, err := w.lb.do(c)
	if err == nil {
		err = a.want(c, 404)
	}
	if err != nil {
		t.Errorf("%s reads %s's record: %v", other.name, owner.name, err)
	}
	c.token = owner.session()
	a, err = w.lb.do(c)
	if err == nil {
		err = a.want(c, 200)
	}
	if err == nil {
		err = a.decode(v)
	}
	if err != nil {
		t.Errorf("%s: %v", owner.name, err)
		return false
	}
	return true
}

// rule is what the test reads of a firewall rule.
type rule struct {
	ID      string  `json:"id"`
	Port    *string `json:"port"`
	Comment *string `json:"comment"`
}

// checkRules lists the tenant's rules on every member: each acknowledged rule is there
// once, with its port and comment; no rule was made twice from one Idempotency-Key;
// the list holds no other tenant's rule, and other cannot read one. A create sent
// again with its key after the roll gets the first answer.
func (w *upgradeWorkload) checkRules(ten, other *loadTenant) {
	t := w.t
	t.Helper()
	prefix := ten.keyPrefix("rule")
	for _, m := range w.lb.members() {
		byKey := map[string][]rule{}
		byID := map[string]rule{}
		cursor := ""
		for page := 0; ; page++ {
			c := call{method: "GET", path: "/api/client/firewall/rules?limit=500", token: ten.session()}
			if cursor != "" {
				c.path += "&cursor=" + url.QueryEscape(cursor)
			}
			a, err := w.lb.doAt(m, c)
			if err == nil {
				err = a.want(c, 200)
			}
			var p struct {
				Items      []rule  `json:"items"`
				NextCursor *string `json:"next_cursor"`
			}
			if err == nil {
				err = a.decode(&p)
			}
			if err != nil {
				t.Errorf("%s: listing the rules: %v", ten.name, err)
				return
			}
			for _, r := range p.Items {
				byID[r.ID] = r
				if r.Comment == nil || !strings.HasPrefix(*r.Comment, prefix) {
					t.Errorf("%s's rule list on %s holds rule %s (comment %v), not one of its own", ten.name, m.name, r.ID, r.Comment)
					continue
				}
				byKey[*r.Comment] = append(byKey[*r.Comment], r)
			}
			if p.NextCursor == nil {
				break
			}
			cursor = *p.NextCursor
		}
		for key, rs := range byKey {
			if len(rs) > 1 {
				t.Errorf("%s: %d rules were made from the one Idempotency-Key %s: %+v", ten.name, len(rs), key, rs)
			}
		}
		for _, r := range ten.rules {
			got, ok := byID[r.id]
			switch {
			case !ok:
				t.Errorf("%s: acknowledged rule %s (key %s) is missing from the list on %s", ten.name, r.id, r.key, m.name)
			case got.Comment == nil || *got.Comment != r.key || got.Port == nil || *got.Port != r.port:
				t.Errorf("%s: rule %s on %s has comment %v and port %v; want %s and %s", ten.name, r.id, m.name, got.Comment, got.Port, r.key, r.port)
			}
		}
	}
	for _, r := range ten.rules {
		c := call{method: "GET", path: "/api/resources/firewall-rules/" + r.id, token: other.session()}
		if a, err := w.lb.do(c); err != nil || a.status != 404 {
			t.Errorf("%s reads %s's rule %s: %v; want 404", other.name, ten.name, r.id, describe(a, err))
		}
	}
	if len(ten.rules) > 0 {
		first := ten.rules[0]
		c := call{method: "POST", path: "/api/client/firewall/rules", token: ten.session(), key: first.key, body: ruleBody(first.key)}
		a, err := w.lb.do(c)
		var got rule
		if err == nil {
			err = a.want(c, 201)
		}
		if err == nil {
			err = a.decode(&got)
		}
		switch {
		case err != nil:
			t.Errorf("%s: the first rule's create sent again after the roll: %v", ten.name, err)
		case got.ID != first.id || a.header.Get("Idempotent-Replayed") != "true":
			t.Errorf("%s: the first rule's create sent again after the roll made rule %s (Idempotent-Replayed %q); want the first answer, rule %s, replayed",
				ten.name, got.ID, a.header.Get("Idempotent-Replayed"), first.id)
		}
	}
}

// checkSessions spends the refresh token kept from a login on a member of the previous
// release, on this tree's members, and renews the session the clients used.
func (w *upgradeWorkload) checkSessions(ten *loadTenant) {
	t := w.t
	t.Helper()
	c := call{method: "POST", path: "/api/auth/refresh", body: map[string]string{"refresh_token": ten.kept}}
	a, err := w.lb.do(c)
	if err == nil {
		err = a.want(c, 200)
	}
	var pair struct{ Token string }
	if err == nil {
		err = a.decode(&pair)
	}
	if err != nil {
		t.Errorf("%s: the refresh token from before the roll: %v", ten.name, err)
		return
	}
	me := call{method: "GET", path: "/api/auth/me", token: pair.Token}
	a, err = w.lb.do(me)
	if err == nil {
		err = a.want(me, 200)
	}
	var user struct{ Email string }
	if err == nil {
		err = a.decode(&user)
	}
	if err == nil && user.Email != ten.email {
		err = fmt.Errorf("signed in as %q; want %q", user.Email, ten.email)
	}
	if err != nil {
		t.Errorf("%s: the session renewed from before the roll: %v", ten.name, err)
	}
	if err := w.renew(ten, 0); err != nil {
		t.Errorf("%s: renewing the clients' session after the roll: %v", ten.name, err)
	}
}

// tasksOf lists the tasks of a machine, one a line, for a failure's message.
func (w *upgradeWorkload) tasksOf(ten *loadTenant, machine string) string {
	c := call{method: "GET", path: "/api/resources/tasks?limit=500", token: ten.session()}
	a, err := w.lb.do(c)
	if err == nil {
		err = a.want(c, 200)
	}
	var p struct {
		Items []map[string]any `json:"items"`
	}
	if err == nil {
		err = a.decode(&p)
	}
	if err != nil {
		return err.Error()
	}
	var lines []string
	for _, task := range p.Items {
		if task["target_id"] == machine {
			lines = append(lines, fmt.Sprintf("%v %v %v %v (created %v, finished %v)", task["id"], task["type"], task["status"], task["error"], task["created_at"], task["finished_at"]))
		}
	}
	return strings.Join(lines, "\n")
}

// describe is an answer or the error that came instead, for a failure message.
func describe(a *answer, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d %s from %s", a.status, a.body, a.member.name)
}
