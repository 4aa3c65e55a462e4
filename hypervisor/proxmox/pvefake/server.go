package pvefake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// route is one API path the fake answers.
type route struct {
	method  string
	pattern string
	segs    []string
	handle  func(*call)
	// ticketOK marks the routes a ticket user (the console user, holding only
	// VM.Console) may call; everything else answers 403 for it.
	ticketOK bool
}

var routes = func() []route {
	q := "/nodes/{node}/qemu/{vmid}"
	rs := []route{
		{method: "GET", pattern: "/version", handle: (*call).version, ticketOK: true},
		{method: "POST", pattern: "/access/ticket", handle: (*call).accessTicket, ticketOK: true},
		{method: "GET", pattern: "/access/permissions", handle: (*call).permissions},
		{method: "GET", pattern: "/cluster/resources", handle: (*call).clusterResources},
		{method: "GET", pattern: "/cluster/nextid", handle: (*call).nextID},
		{method: "GET", pattern: "/nodes/{node}/tasks", handle: (*call).nodeTasks},
		{method: "GET", pattern: "/nodes/{node}/tasks/{upid}/status", handle: (*call).taskStatus},
		{method: "GET", pattern: "/nodes/{node}/rrddata", handle: (*call).nodeRRD},
		{method: "POST", pattern: "/nodes/{node}/vzdump", handle: (*call).vzdump},
		{method: "GET", pattern: "/nodes/{node}/storage/{storage}/content", handle: (*call).storageContent},
		{method: "DELETE", pattern: "/nodes/{node}/storage/{storage}/content/{volume}", handle: (*call).deleteVolume},
		{method: "POST", pattern: "/nodes/{node}/storage/{storage}/download-url", handle: (*call).downloadURL},
		{method: "POST", pattern: "/nodes/{node}/storage/{storage}/upload", handle: (*call).upload},
		{method: "POST", pattern: "/nodes/{node}/qemu", handle: (*call).restore},
		{method: "DELETE", pattern: q, handle: (*call).destroy},
		{method: "GET", pattern: q + "/config", handle: (*call).getConfig},
		{method: "POST", pattern: q + "/config", handle: (*call).postConfig},
		{method: "PUT", pattern: q + "/config", handle: (*call).putConfig},
		{method: "GET", pattern: q + "/migrate", handle: (*call).migratePreconditions},
		{method: "POST", pattern: q + "/migrate", handle: (*call).migrate},
		{method: "PUT", pattern: q + "/resize", handle: (*call).resize},
		{method: "POST", pattern: q + "/clone", handle: (*call).clone},
		{method: "POST", pattern: q + "/termproxy", handle: (*call).termproxy, ticketOK: true},
		{method: "POST", pattern: q + "/vncproxy", handle: (*call).vncproxy, ticketOK: true},
		{method: "GET", pattern: q + "/vncwebsocket", ticketOK: true}, // handled outside the lock
		{method: "GET", pattern: q + "/rrddata", handle: (*call).vmRRD},
		{method: "GET", pattern: q + "/status/current", handle: (*call).statusCurrent},
		{method: "POST", pattern: q + "/status/{action}", handle: (*call).statusAction},
		{method: "GET", pattern: q + "/firewall/rules", handle: (*call).fwRules},
		{method: "POST", pattern: q + "/firewall/rules", handle: (*call).fwCreate},
		{method: "GET", pattern: q + "/firewall/rules/{pos}", handle: (*call).fwRule},
		{method: "PUT", pattern: q + "/firewall/rules/{pos}", handle: (*call).fwUpdate},
		{method: "DELETE", pattern: q + "/firewall/rules/{pos}", handle: (*call).fwDelete},
		{method: "GET", pattern: q + "/firewall/options", handle: (*call).fwOptions},
		{method: "PUT", pattern: q + "/firewall/options", handle: (*call).fwSetOptions},
		{method: "GET", pattern: q + "/firewall/ipset", handle: (*call).ipsetIndex},
		{method: "POST", pattern: q + "/firewall/ipset", handle: (*call).ipsetCreate},
		{method: "GET", pattern: q + "/firewall/ipset/{name}", handle: (*call).ipsetEntries},
		{method: "POST", pattern: q + "/firewall/ipset/{name}", handle: (*call).ipsetAdd},
		{method: "DELETE", pattern: q + "/firewall/ipset/{name}", handle: (*call).ipsetDelete},
		{method: "GET", pattern: q + "/firewall/ipset/{name}/{cidr}", handle: (*call).ipsetEntry},
		{method: "PUT", pattern: q + "/firewall/ipset/{name}/{cidr}", handle: (*call).ipsetUpdate},
		{method: "DELETE", pattern: q + "/firewall/ipset/{name}/{cidr}", handle: (*call).ipsetRemove},
		{method: "GET", pattern: q + "/snapshot", handle: (*call).snapshotList},
		{method: "POST", pattern: q + "/snapshot", handle: (*call).snapshotCreate},
		{method: "DELETE", pattern: q + "/snapshot/{snapname}", handle: (*call).snapshotDelete},
		{method: "POST", pattern: q + "/snapshot/{snapname}/rollback", handle: (*call).snapshotRollback},
	}
	for i := range rs {
		rs[i].segs = strings.Split(strings.TrimPrefix(rs[i].pattern, "/"), "/")
	}
	return rs
}()

// match finds the route of a method and path segments, filling in its parameters.
func match(method string, segs []string) (*route, map[string]string) {
	for i := range routes {
		rt := &routes[i]
		if rt.method != method || len(rt.segs) != len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for j, p := range rt.segs {
			if strings.HasPrefix(p, "{") {
				params[strings.Trim(p, "{}")] = segs[j]
			} else if p != segs[j] {
				ok = false
				break
			}
		}
		if ok {
			return rt, params
		}
	}
	return nil, nil
}

// call is one request being answered.
type call struct {
	s      *Server
	w      http.ResponseWriter
	r      *http.Request
	method string
	path   string
	route  string
	p      map[string]string
	form   url.Values
	user   string
	token  bool
	fault  *Fault
	status int
	// answerErrs are the return-schema violations of the answer ok refused.
	answerErrs []string
	// uploaded is the file of a multipart upload, as parseParams read it (nil: none).
	uploaded *uploadedFile
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	c := &call{s: s, w: w, r: r, method: r.Method}
	raw, ok := strings.CutPrefix(r.URL.EscapedPath(), "/api2/json")
	if !ok {
		http.NotFound(w, r)
		return
	}
	var segs []string
	for _, seg := range strings.Split(strings.Trim(raw, "/"), "/") {
		u, err := url.PathUnescape(seg)
		if err != nil {
			u = seg
		}
		segs = append(segs, u)
	}
	// An IP set entry's {cidr} holds a slash: pve-firewall registers it with no
	// fragment delimiter, so the rest of the path is the one parameter, escaped
	// (%2F) or not.
	if len(segs) > 8 && segs[0] == "nodes" && segs[2] == "qemu" && segs[4] == "firewall" && segs[5] == "ipset" {
		segs = append(segs[:7:7], strings.Join(segs[7:], "/"))
	}
	c.path = "/" + strings.Join(segs, "/")
	rt, params := match(r.Method, segs)
	if rt != nil {
		c.route, c.p = rt.pattern, params
	}
	// Requests are logged on arrival, so a test sees a request the client gave up on
	// at once; the status is filled in when the answer is written.
	var schema string
	if rt != nil {
		if _, name, ok := schemaFor(c.method, c.route, c.p); ok {
			schema = name
		}
	}
	s.mu.Lock()
	idx := len(s.requests)
	s.requests = append(s.requests, Request{Method: c.method, Path: c.path, Route: c.route, Schema: schema})
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if idx < len(s.requests) && s.requests[idx].Path == c.path && s.requests[idx].Status == 0 {
			s.requests[idx].Status = c.status
			s.requests[idx].AnswerErrors = c.answerErrs
		}
		s.mu.Unlock()
	}()
	if err := c.parseParams(); err != nil {
		c.fail(400, "invalid request body: %v", err)
		return
	}
	if rt == nil || rt.pattern != "/access/ticket" {
		if !c.authenticate() {
			return
		}
	}
	if rt == nil {
		c.fail(501, "Method '%s %s' not implemented", r.Method, c.path)
		return
	}

	s.mu.Lock()
	c.fault = s.faultLocked(c.method, c.path, c.route)
	s.mu.Unlock()
	if f := c.fault; f != nil {
		if f.Hook != nil {
			f.Hook()
		}
		if f.Delay > 0 {
			t := time.NewTimer(f.Delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				c.status = 499 // the client gave up, as nginx would log it
				// Hang up without an answer: returning would make net/http send an
				// empty 200, which a client racing its own timeout might read.
				panic(http.ErrAbortHandler)
			}
		}
		if f.Status != 0 {
			msg := f.Message
			if msg == "" {
				msg = http.StatusText(f.Status)
			}
			c.fail(f.Status, "%s", msg)
			return
		}
	}
	if !c.checkSchema() {
		return
	}
	if !c.token && !rt.ticketOK {
		c.fail(403, "Permission check failed (%s, %s)", c.aclPath(), "VM.Audit")
		return
	}
	if name, ok := c.p["node"]; ok {
		s.mu.Lock()
		n := s.nodeLocked(name)
		online := n != nil && n.online
		s.mu.Unlock()
		switch {
		case n == nil:
			c.fail(500, "hostname lookup '%s' failed - failed to get address info for: %s: Name or service not known", name, name)
			return
		case !online:
			c.fail(595, "Connection refused")
			return
		}
	}
	if rt.handle == nil { // vncwebsocket runs its session outside the state lock
		c.vncWebsocket()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rt.handle(c)
}

// aclPath is the ACL path a permission error names.
func (c *call) aclPath() string {
	if v, ok := c.p["vmid"]; ok {
		return "/vms/" + v
	}
	if n, ok := c.p["node"]; ok {
		return "/nodes/" + n
	}
	return "/"
}

// parseParams merges query parameters and a form or JSON body, as pveproxy does.
func (c *call) parseParams() error {
	c.form = c.r.URL.Query()
	if c.r.Body == nil || c.r.Method == http.MethodGet {
		return nil
	}
	ct := c.r.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "multipart/form-data") {
		return c.parseMultipart()
	}
	if strings.HasPrefix(ct, "application/json") {
		var body map[string]any
		dec := json.NewDecoder(http.MaxBytesReader(c.w, c.r.Body, 1<<20))
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil {
			if err.Error() == "EOF" {
				return nil
			}
			return err
		}
		for k, v := range body {
			switch x := v.(type) {
			case nil:
			case string:
				c.form.Set(k, x)
			case json.Number:
				c.form.Set(k, x.String())
			case bool:
				if x {
					c.form.Set(k, "1")
				} else {
					c.form.Set(k, "0")
				}
			default:
				b, _ := json.Marshal(x)
				c.form.Set(k, string(b))
			}
		}
		return nil
	}
	if err := c.r.ParseForm(); err != nil {
		return err
	}
	for k, vs := range c.r.PostForm {
		c.form[k] = vs
	}
	return nil
}

// authenticate checks the API token or the ticket cookie (with its CSRF token on
// writes) and answers 401 when neither is valid.
func (c *call) authenticate() bool {
	s := c.s
	if h := c.r.Header.Get("Authorization"); h != "" {
		v, ok := strings.CutPrefix(h, "PVEAPIToken=")
		id, secret, ok2 := strings.Cut(v, "=")
		if !ok || !ok2 || id != s.cfg.TokenID || secret != s.cfg.TokenSecret {
			c.fail(401, "authentication failure")
			return false
		}
		c.user, c.token = id, true
		return true
	}
	ck, err := c.r.Cookie("PVEAuthCookie")
	if err != nil {
		c.fail(401, "No ticket")
		return false
	}
	s.mu.Lock()
	t, ok := s.tickets[ck.Value]
	s.mu.Unlock()
	if !ok || s.cfg.Now().After(t.expires) {
		c.fail(401, "invalid PVE ticket")
		return false
	}
	if c.r.Method != http.MethodGet && c.r.Header.Get("CSRFPreventionToken") != t.csrf {
		c.fail(401, "Permission denied - invalid csrf token")
		return false
	}
	c.user = t.user
	return true
}

// ok answers {"data": data}. Unless Config.SkipAnswerCheck is set, data is first
// checked against the call's return schema; an answer real Proxmox could not give is
// a 500 "Result verification failed" (what pveproxy answers when it verifies its own
// results) and is recorded in Request.AnswerErrors, so a test sees the fake's mistake
// instead of a driver built on it.
func (c *call) ok(data any) {
	if !c.s.cfg.SkipAnswerCheck {
		if errs := c.checkAnswer(data); len(errs) > 0 {
			c.answerErrs = errs
			c.fail(500, "Result verification failed: %s", strings.Join(errs, "; "))
			return
		}
	}
	c.status = 200
	c.w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	c.w.WriteHeader(200)
	_ = json.NewEncoder(c.w).Encode(map[string]any{"data": data})
}

// fail answers an error as pveproxy does: the status and {"data":null,"message":...}.
func (c *call) fail(code int, format string, args ...any) {
	c.status = code
	c.w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	c.w.WriteHeader(code)
	_ = json.NewEncoder(c.w).Encode(map[string]any{"data": nil, "message": fmt.Sprintf(format, args...) + "\n"})
}

// paramErr answers 400 naming one invalid parameter.
func (c *call) paramErr(param, format string, args ...any) {
	c.status = 400
	c.w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	c.w.WriteHeader(400)
	_ = json.NewEncoder(c.w).Encode(map[string]any{
		"data":    nil,
		"errors":  map[string]string{param: fmt.Sprintf(format, args...)},
		"message": "Parameter verification failed.\n",
	})
}

// task registers a worker task for this call and answers its UPID. A TaskExit fault
// replaces apply (the task changes nothing) but still runs undo, so locks taken for
// the task are released.
func (c *call) task(typ, id string, apply func() string, undo func()) {
	if c.fault != nil && c.fault.TaskExit != "" {
		exit := c.fault.TaskExit
		apply = func() string {
			if undo != nil {
				undo()
			}
			return exit
		}
	}
	upid := c.s.newTaskLocked(c.p["node"], typ, id, c.user, nil, apply)
	c.ok(upid)
}

// vmLocked finds the request's VM on the request's node, or answers 500 the way
// Proxmox does when the config file is not on that node.
func (c *call) vmLocked() *vm {
	id, err := strconv.Atoi(c.p["vmid"])
	if err != nil || id < 100 {
		c.paramErr("vmid", "invalid format - value does not look like a valid VM ID")
		return nil
	}
	v, ok := c.s.vms[id]
	if !ok || v.node != c.p["node"] {
		c.fail(500, "Configuration file 'nodes/%s/qemu-server/%d.conf' does not exist", c.p["node"], id)
		return nil
	}
	return v
}

// lockedLocked answers "VM is locked" when the VM holds a lock and skiplock is unset.
func (c *call) lockedLocked(v *vm) bool {
	if v.lock == "" || boolParam(c.form.Get("skiplock")) {
		return false
	}
	c.fail(500, "VM %d is locked (%s)", v.vmid, v.lock)
	return true
}

func boolParam(s string) bool {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
