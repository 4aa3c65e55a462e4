package actors

import (
	"context"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/persistence"
)

// Migrations is the chain of schema migrations persistence.Upgrade runs on an older
// store, before Start: migrations[i] moves a store from version i+1. They rewrite
// domain records, so each step is its package's function, put together here where the
// packages meet; persistence knows only that they exist.
func Migrations(log *zap.Logger) []persistence.Migration {
	if log == nil {
		log = zap.NewNop()
	}
	return []persistence.Migration{{
		From: 1,
		Name: "normalise stored e-mails; build the tenant-name index",
		// Each step commits batches of its own (a store may hold more records than an
		// etcd transaction takes) and may run again after a crash before the stamp.
		Apply: func(ctx context.Context, s persistence.Store, _ *persistence.Batch) error {
			if err := auth.MigrateEmails(ctx, s, log.Named("auth")); err != nil {
				return err
			}
			return tenants.MigrateNameIndex(ctx, s, log.Named("tenants"))
		},
	}, {
		From: 2,
		Name: "build the tenants' usage counters",
		// On etcd it writes nothing: members of the earlier release may still run, and
		// the counters are built once none does (machines.MigrateUsageCounters).
		Apply: func(ctx context.Context, s persistence.Store, b *persistence.Batch) error {
			return machines.MigrateUsageCounters(ctx, s, b, log.Named("machines"))
		},
	}, {
		From: 3,
		Name: "index each machine's tasks, newest first",
		// Batches of its own, each idempotent (tasks.MigrateMachineTasks).
		Apply: func(ctx context.Context, s persistence.Store, _ *persistence.Batch) error {
			return tasks.MigrateMachineTasks(ctx, s, log.Named("machines"))
		},
	}}
}
