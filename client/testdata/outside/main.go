// Command outside is a program outside the vmplane module that drives a server through
// github.com/vmplane/vmplane/client alone, as a billing system or a script would:
// TestOutsideProgram builds and runs it against a real server. It prints one line per
// step and exits 1 at the first that fails.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/vmplane/vmplane/client"
)

func main() {
	if err := run(os.Getenv("VMPLANE_URL"), os.Getenv("VMPLANE_EMAIL"), os.Getenv("VMPLANE_PASSWORD")); err != nil {
		fmt.Println("failed:", err)
		os.Exit(1)
	}
	fmt.Println("done")
}

func run(base, email, password string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := client.New(base, client.WithCredentials(email, password))
	if err != nil {
		return err
	}
	if _, err := admin.Login(ctx); err != nil {
		return fmt.Errorf("login: %w", err)
	}
	fmt.Println("logged in")
	if err := admin.Sync(ctx); err != nil {
		return err
	}
	ten, err := admin.CreateTenant(ctx, client.TenantCreate{Name: "Outside Ltd"})
	if err != nil {
		return fmt.Errorf("create tenant: %w", err)
	}
	if _, err := admin.CreateUser(ctx, client.UserCreate{Email: "ops@outside.test", Name: "Ops", Role: client.RoleUser,
		Password: "outside user password", TenantID: ten.ID}); err != nil {
		return fmt.Errorf("create user: %w", err)
	}
	fmt.Println("tenant and user created")
	user, err := client.New(base, client.WithCredentials("ops@outside.test", "outside user password"))
	if err != nil {
		return err
	}
	var tpl client.Template
	for t, err := range user.Templates(ctx, client.ListOptions{}) {
		if err != nil {
			return err
		}
		tpl = t
		break
	}
	for i := range 3 {
		m, task, err := user.CreateMachine(ctx, client.MachineSpec{Name: fmt.Sprintf("outside-%d", i), TemplateID: tpl.ID,
			CPUCores: 1, MemoryMB: 512, DiskGB: tpl.DiskGB})
		if err != nil {
			return fmt.Errorf("create machine: %w", err)
		}
		if _, err := user.WaitTask(ctx, task.ID); err != nil {
			return fmt.Errorf("wait for %s: %w", m.Name, err)
		}
		if i == 0 {
			power, err := user.MachineAction(ctx, m.ID, "reboot")
			if err != nil {
				return fmt.Errorf("reboot: %w", err)
			}
			if _, err := user.WaitTask(ctx, power.ID); err != nil {
				return fmt.Errorf("wait for the reboot: %w", err)
			}
		}
	}
	fmt.Println("machines created and powered")
	page, err := user.MachinesPage(ctx, client.MachineFilter{ListOptions: client.ListOptions{Limit: 2}})
	if err != nil || len(page.Items) != 2 || page.NextCursor == "" {
		return fmt.Errorf("first page of 2: %+v, %v", page, err)
	}
	n := 0
	for _, err := range user.Machines(ctx, client.MachineFilter{ListOptions: client.ListOptions{Limit: 2}}) {
		if err != nil {
			return err
		}
		n++
	}
	if n != 3 {
		return fmt.Errorf("paged through %d machines; want 3", n)
	}
	fmt.Println("paged through 3 machines")
	for ev, err := range admin.Events(ctx, 0) {
		if err != nil {
			return fmt.Errorf("events: %w", err)
		}
		if ev.Type == "" {
			return fmt.Errorf("an event without a type: %+v", ev)
		}
		break
	}
	fmt.Println("read an event")
	if _, err := user.GetMachine(ctx, "01J00000000000000000000000"); !errors.Is(err, client.ErrNotFound) {
		return fmt.Errorf("a missing machine: %v; want client.ErrNotFound", err)
	}
	var e *client.Error
	if _, err := user.CreateTenant(ctx, client.TenantCreate{Name: "x"}); !errors.As(err, &e) || e.Status != 403 {
		return fmt.Errorf("a user creating a tenant: %v; want a 403 *client.Error", err)
	}
	fmt.Println("typed errors")
	return nil
}
