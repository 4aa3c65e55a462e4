package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"time"

	"github.com/vmplane/vmplane/client"
)

// An operator creates a tenant and its user; the user creates a machine, waits for it,
// stops it and pages through its machines. Errors are compared with errors.Is.
func Example() {
	base, stop := startExampleServer() // a real server on loopback, for the example
	defer stop()
	ctx := context.Background()

	admin, err := client.New(base, client.WithCredentials("admin@example.test", "correct horse battery staple"))
	if err != nil {
		log.Fatal(err)
	}
	if err := admin.Sync(ctx); err != nil { // read the hypervisor's templates
		log.Fatal(err)
	}
	tenant, err := admin.CreateTenant(ctx, client.TenantCreate{Name: "Acme"})
	if err != nil {
		log.Fatal(err)
	}
	_, err = admin.CreateUser(ctx, client.UserCreate{Email: "ada@acme.test", Name: "Ada",
		Role: client.RoleUser, Password: "a long enough password", TenantID: tenant.ID})
	if err != nil {
		log.Fatal(err)
	}

	ada, err := client.New(base, client.WithCredentials("ada@acme.test", "a long enough password"))
	if err != nil {
		log.Fatal(err)
	}
	var tpl client.Template
	for t, err := range ada.Templates(ctx, client.ListOptions{}) {
		if err != nil {
			log.Fatal(err)
		}
		tpl = t
		break
	}
	m, task, err := ada.CreateMachine(ctx, client.MachineSpec{Name: "web-1", TemplateID: tpl.ID,
		CPUCores: 1, MemoryMB: 512, DiskGB: tpl.DiskGB})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := ada.WaitTask(ctx, task.ID); err != nil {
		log.Fatal(err)
	}
	if m, err = ada.GetMachine(ctx, m.ID); err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Name, m.Status)

	task, err = ada.MachineAction(ctx, m.ID, client.ActionStop)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := ada.WaitTask(ctx, task.ID); err != nil {
		log.Fatal(err)
	}
	for m, err := range ada.Machines(ctx, client.MachineFilter{}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.Name, m.Status)
	}

	_, err = ada.GetMachine(ctx, "01J00000000000000000000000")
	fmt.Println(errors.Is(err, client.ErrNotFound))
	// Output:
	// web-1 running
	// web-1 stopped
	// true
}

// Several members of a cluster, a pool sized for 32 concurrent callers, and a bounded
// retry budget.
func ExampleNew() {
	c, err := client.New("http://10.0.0.1:8080",
		client.WithBaseURLs("http://10.0.0.2:8080", "http://10.0.0.3:8080"),
		client.WithToken("eyJ..."),
		client.WithMaxConns(32),
		client.WithRetryBudget(3, 10*time.Second),
	)
	if err != nil {
		log.Fatal(err)
	}
	_ = c
}

// A caller-chosen Idempotency-Key makes a create safe to repeat, even from a later run
// of the program: the server answers the first result again and applies it once.
func ExampleWithIdempotencyKey() {
	c, err := client.New("http://127.0.0.1:8080", client.WithCredentials("admin@example.test", "secret"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := client.WithIdempotencyKey(context.Background(), "order-2026-0042")
	tenant, err := c.CreateTenant(ctx, client.TenantCreate{Name: "Acme"})
	if errors.Is(err, client.ErrConflict) {
		// The first request with this key was cut short by a server restart: it may
		// have taken effect. Look before creating it anew under a new key.
		log.Fatal("check whether Acme exists before trying again: ", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tenant.ID)
}

// exampleSetup signs in as the operator of a fresh example server, reads the
// hypervisor's templates and makes a tenant with a user, whose client it returns with
// a template to create machines from.
func exampleSetup(base string) (admin, user *client.Client, tenant *client.Tenant, tpl client.Template) {
	ctx := context.Background()
	admin, err := client.New(base, client.WithCredentials("admin@example.test", "correct horse battery staple"))
	if err != nil {
		log.Fatal(err)
	}
	if err := admin.Sync(ctx); err != nil {
		log.Fatal(err)
	}
	if tenant, err = admin.CreateTenant(ctx, client.TenantCreate{Name: "Acme"}); err != nil {
		log.Fatal(err)
	}
	if _, err = admin.CreateUser(ctx, client.UserCreate{Email: "ada@acme.test", Name: "Ada",
		Role: client.RoleUser, Password: "a long enough password", TenantID: tenant.ID}); err != nil {
		log.Fatal(err)
	}
	if user, err = client.New(base, client.WithCredentials("ada@acme.test", "a long enough password")); err != nil {
		log.Fatal(err)
	}
	page, err := user.TemplatesPage(ctx, client.ListOptions{Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	return admin, user, tenant, page.Items[0]
}

// Machines is an iterator over every page of the list: the loop asks for the next
// page (following next_cursor) when it has used the items of one. MachinesPage reads
// a single page and gives its cursor.
func ExampleClient_Machines() {
	base, stop := startExampleServer()
	defer stop()
	_, ada, _, tpl := exampleSetup(base)
	ctx := context.Background()

	for _, name := range []string{"db", "web-1", "web-2"} {
		if _, _, err := ada.CreateMachine(ctx, client.MachineSpec{Name: name, TemplateID: tpl.ID,
			CPUCores: 1, MemoryMB: 512, DiskGB: tpl.DiskGB}); err != nil {
			log.Fatal(err)
		}
	}
	// Two machines a page: the iterator reads two pages.
	for m, err := range ada.Machines(ctx, client.MachineFilter{ListOptions: client.ListOptions{Limit: 2}}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.Name)
	}
	page, err := ada.MachinesPage(ctx, client.MachineFilter{ListOptions: client.ListOptions{Limit: 2}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(page.Items), page.NextCursor != "")
	// Output:
	// db
	// web-1
	// web-2
	// 2 true
}

// Slow work (create, power, resize, ...) answers 202 with a task; WaitTask waits for
// its end and turns a failed task into an error.
func ExampleClient_WaitTask() {
	base, stop := startExampleServer()
	defer stop()
	_, ada, _, tpl := exampleSetup(base)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	m, task, err := ada.CreateMachine(ctx, client.MachineSpec{Name: "web", TemplateID: tpl.ID,
		CPUCores: 1, MemoryMB: 512, DiskGB: tpl.DiskGB})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(task.Type, task.TargetID == m.ID)
	task, err = ada.WaitTask(ctx, task.ID)
	var failed *client.TaskError
	switch {
	case errors.As(err, &failed):
		log.Fatal("the create failed: ", *failed.Task.Error)
	case err != nil:
		log.Fatal(err) // ctx ended, or the server could not be asked
	}
	fmt.Println(task.Status)
	// Output:
	// vm.create true
	// succeeded
}

// A power schedule runs an action on a cron expression in a time zone; a backup
// schedule keeps the newest backups it took.
func ExampleClient_CreateMachinePowerSchedule() {
	base, stop := startExampleServer()
	defer stop()
	_, ada, _, tpl := exampleSetup(base)
	ctx := context.Background()
	m, task, err := ada.CreateMachine(ctx, client.MachineSpec{Name: "office", TemplateID: tpl.ID,
		CPUCores: 1, MemoryMB: 512, DiskGB: tpl.DiskGB})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := ada.WaitTask(ctx, task.ID); err != nil {
		log.Fatal(err)
	}

	// Shut down at 19:00 on working days, Berlin time; back up every night.
	p, err := ada.CreateMachinePowerSchedule(ctx, m.ID, client.PowerScheduleSpec{
		Action: client.ActionShutdown, Cron: "0 19 * * 1-5", Timezone: "Europe/Berlin"})
	if err != nil {
		log.Fatal(err)
	}
	b, err := ada.CreateMachineBackupSchedule(ctx, m.ID, client.BackupScheduleSpec{Cron: "@daily", Retention: 7})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Action, p.Cron, p.Timezone, p.Enabled)
	fmt.Println(b.Mode, b.Retention)

	// Later: move the shutdown to 20:00, and pause the backups.
	if p, err = ada.UpdatePowerSchedule(ctx, p.ID, client.PowerScheduleChange{Cron: client.Set("0 20 * * 1-5")}); err != nil {
		log.Fatal(err)
	}
	if b, err = ada.UpdateBackupSchedule(ctx, b.ID, client.BackupScheduleChange{Enabled: client.Set(false)}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Cron, b.Enabled)
	// Output:
	// shutdown 0 19 * * 1-5 Europe/Berlin true
	// snapshot 7
	// 0 20 * * 1-5 false
}

// Optional fields of a PATCH body have three states: left out (the zero value: the
// field keeps its value), Set (a new value) and Null (JSON null: the field is
// cleared). Here a rule loses its port and its comment and is disabled; its source
// stays.
func ExampleOptional() {
	base, stop := startExampleServer()
	defer stop()
	_, ada, _, _ := exampleSetup(base)
	ctx := context.Background()

	port, src, comment := "22", "192.0.2.0/24", "ssh from the office"
	r, err := ada.CreateFirewallRule(ctx, client.FirewallRuleSpec{Direction: "in", Action: "accept", Protocol: "tcp",
		Port: &port, Source: &src, Comment: &comment})
	if err != nil {
		log.Fatal(err)
	}
	r, err = ada.PatchFirewallRule(ctx, r.ID, client.FirewallRulePatch{
		Port:    client.Null[string](),
		Comment: client.Null[string](),
		Enabled: client.Set(false),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Port == nil, *r.Source, r.Comment == "", r.Enabled)
	// Output:
	// true 192.0.2.0/24 true false
}

// An operator watches the health of a service and acknowledges the alert of a failing
// check; the alert resolves by itself when the check passes again (or is deleted).
func ExampleClient_AcknowledgeAlert() {
	base, stop := startExampleServer()
	defer stop()
	admin, _, _, _ := exampleSetup(base)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// A TCP check of a loopback port nothing listens on: it fails at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	hc, err := admin.CreateHealthCheck(ctx, client.HealthCheckSpec{Name: "db", Type: client.CheckTCP,
		Target: addr, IntervalS: 1, TimeoutMS: 500, FailureThreshold: 1})
	if err != nil {
		log.Fatal(err)
	}
	for {
		page, err := admin.AlertsPage(ctx, client.AlertFilter{Kind: "health_check", Status: client.AlertFiring})
		if err != nil {
			log.Fatal(err)
		}
		if len(page.Items) > 0 {
			a, err := admin.AcknowledgeAlert(ctx, page.Items[0].ID)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(a.Kind, a.TargetID == hc.ID, a.Status)
			break
		}
		time.Sleep(100 * time.Millisecond) // a user's poll interval: the example is user code
	}
	// Output:
	// health_check true acknowledged
}

// Events yields the server-sent events the caller may see. Starting after 0 replays
// the backlog the server keeps; a program that stops remembers the last Event.ID and
// passes it next time to miss nothing, and a dropped connection is resumed by itself.
func ExampleClient_Events() {
	base, stop := startExampleServer()
	defer stop()
	_, ada, _, tpl := exampleSetup(base)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	_, task, err := ada.CreateMachine(ctx, client.MachineSpec{Name: "web", TemplateID: tpl.ID,
		CPUCores: 1, MemoryMB: 512, DiskGB: tpl.DiskGB})
	if err != nil {
		log.Fatal(err)
	}
	for ev, err := range ada.Events(ctx, 0) {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Type != "task.updated" {
			continue
		}
		var t client.Task
		if err := json.Unmarshal(ev.Data, &t); err != nil {
			log.Fatal(err)
		}
		if t.ID == task.ID && t.Done() {
			fmt.Println(t.Type, t.Status)
			break // ends the stream
		}
	}
	// Output:
	// vm.create succeeded
}
