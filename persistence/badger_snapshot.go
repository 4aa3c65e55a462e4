package persistence

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/vmplane/vmplane/apierr"
)

var _ Snapshotter = (*Badger)(nil)

// Backup implements Snapshotter with Badger's backup stream, read by one goroutine:
// Badger gives each of a stream's goroutines a read transaction of its own, taken at
// slightly different moments, so only a single one reads one point in time. Writes go
// on meanwhile; Close waits for a backup under way (ctx bounds it).
func (s *Badger) Backup(ctx context.Context, w io.Writer) error {
	if !s.gate.enter() {
		return errClosed()
	}
	defer s.gate.leave()
	if s.db == nil {
		return errNoDB
	}
	schema, err := StoredSchema(ctx, s)
	if err != nil {
		return err
	}
	err = writeBackup(ctx, w, BackupHeader{Format: backupFormat, Schema: schema}, func(fw io.Writer) error {
		stream := s.db.NewStream()
		stream.LogPrefix = "persistence: backup"
		stream.NumGo = 1
		_, err := stream.Backup(fw, 0)
		return err
	})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxError(ctxErr)
		}
		return internal("backup failed", err)
	}
	return nil
}

// Load implements Snapshotter with Badger's loader, then syncs: the loader writes
// without syncing (SyncWrites is off in group-commit mode).
func (s *Badger) Load(r io.Reader) error {
	if !s.gate.enter() {
		return errClosed()
	}
	defer s.gate.leave()
	if s.db == nil {
		return errNoDB
	}
	empty := true
	// Snapshotter.Load takes no context: it runs on a store nothing else uses yet.
	if err := s.Scan(context.Background(), Prefix(), nil, 1, func(_, _ []byte) error { empty = false; return nil }); err != nil {
		return err
	}
	if !empty {
		return apierr.New(apierr.ErrConflict, "the store in %s already holds records: a backup loads only into an empty one", s.dir)
	}
	fr, _, err := newFrameReader(bufio.NewReaderSize(r, 64<<10))
	if err != nil {
		return err
	}
	if err := s.db.Load(fr, 256); err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return err
		}
		return fmt.Errorf("%w: %w", badBackup("its records do not decode"), err)
	}
	if err := s.db.Sync(); err != nil {
		return internal("syncing the loaded backup failed", err)
	}
	return nil
}
