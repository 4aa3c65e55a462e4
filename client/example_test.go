package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
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
