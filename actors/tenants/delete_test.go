package tenants

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// A tenant that still has users or schedules is not deleted: tenants asks their owners
// (auth and the schedules, through Deps) rather than reading their indexes.
func TestDeleteAsksForUsersAndSchedules(t *testing.T) {
	var users, schedules atomic.Bool
	s := newTestSystem(t, func(o *testOptions) {
		o.HasUsers = func(context.Context, string) (bool, error) { return users.Load(), nil }
		o.HasSchedules = func(context.Context, string) (bool, error) { return schedules.Load(), nil }
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ten, err := s.Tenants.Create(ctx, "Leaving", nil)
	if err != nil {
		t.Fatal(err)
	}
	users.Store(true)
	if err := s.Tenants.Delete(ctx, ten.ID); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("delete with a user: %v; want a conflict", err)
	}
	users.Store(false)
	schedules.Store(true)
	if err := s.Tenants.Delete(ctx, ten.ID); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("delete with a schedule: %v; want a conflict", err)
	}
	schedules.Store(false)
	if err := s.Tenants.Delete(ctx, ten.ID); err != nil {
		t.Fatalf("delete with nothing left: %v; want it deleted", err)
	}
}
