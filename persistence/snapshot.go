package persistence

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vmplane/vmplane/apierr"
)

// Snapshotter is implemented by stores that take their own backups: a consistent
// snapshot of every record written while they serve (Backup), and a load of one into a
// new store (Load). It is optional: a replicated store is backed up with its cluster's
// own tools, and SnapshotterOf says so with ErrNoSnapshots.
type Snapshotter interface {
	// Backup writes a consistent snapshot of the store to w, in the backup format
	// (see below). Writes committed while it runs are either all in it or not at all:
	// it reads one point in time. It stops with ctx's error when ctx ends.
	Backup(ctx context.Context, w io.Writer) error
	// Load reads a backup from r into the store, which must hold no record (else it
	// fails with apierr.ErrConflict and writes nothing). A backup that does not check
	// out (not a backup, truncated, altered) fails with apierr.ErrInvalidRequest;
	// what was loaded before that is then in the store, so callers load into a store
	// they can throw away.
	Load(r io.Reader) error
}

// ErrNoSnapshots is SnapshotterOf's answer for a store that cannot take backups itself.
var ErrNoSnapshots = apierr.New(apierr.ErrInvalidState,
	"this store is not backed up through vmplane: back up its cluster with the cluster's tools instead (etcd: etcdctl snapshot save)")

// SnapshotterOf returns the store's Snapshotter, or ErrNoSnapshots.
func SnapshotterOf(s Store) (Snapshotter, error) {
	if sn, ok := s.(Snapshotter); ok {
		return sn, nil
	}
	return nil, ErrNoSnapshots
}

// The backup format: a header line, then Badger's own backup stream (frames of a
// little-endian uint64 length and a protobuf KVList, what badger.DB.Backup writes and
// badger.DB.Load reads), then a trailer: the length endMarker and the SHA-256 of every
// byte before the marker. Badger's stream alone has no end: a file cut at a frame
// boundary would load as a smaller, valid-looking store. The trailer makes a truncated
// or altered backup fail to load instead.
//
//	vmplane-backup format=1 schema=1\n
//	<len uint64 LE><KVList> ...
//	<0xffffffffffffffff><sha256 of all the above>
const (
	backupMagic  = "vmplane-backup"
	backupFormat = 1
	endMarker    = math.MaxUint64
	// maxFrame bounds a frame's length before anything is allocated for it: Badger
	// batches up to 100 MiB per frame.
	maxFrame = 1 << 30
)

// BackupHeader is what the first line of a backup says.
type BackupHeader struct {
	Format int // of the file: backupFormat
	Schema int // the store's schema version when the backup was taken
}

func (h BackupHeader) line() string {
	return fmt.Sprintf("%s format=%d schema=%d\n", backupMagic, h.Format, h.Schema)
}

// ReadBackupHeader reads and checks a backup's first line.
func ReadBackupHeader(r *bufio.Reader) (BackupHeader, error) {
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, backupMagic+" ") {
		return BackupHeader{}, badBackup("it does not start like a vmplane backup")
	}
	var h BackupHeader
	for f := range strings.FieldsSeq(strings.TrimPrefix(line, backupMagic)) {
		k, v, _ := strings.Cut(f, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			return BackupHeader{}, badBackup("bad header field %q", f)
		}
		switch k {
		case "format":
			h.Format = n
		case "schema":
			h.Schema = n
		}
	}
	if h.Format != backupFormat {
		return BackupHeader{}, badBackup("format %d, this vmplane reads format %d", h.Format, backupFormat)
	}
	return h, nil
}

func badBackup(f string, a ...any) error {
	return apierr.New(apierr.ErrInvalidRequest, "not a usable vmplane backup: "+f, a...)
}

// VerifyBackup reads a whole backup and checks its header, framing and checksum
// without loading it, so that a restore can refuse a bad file before writing anything.
func VerifyBackup(r io.Reader) (BackupHeader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	fr, h, err := newFrameReader(br)
	if err != nil {
		return h, err
	}
	_, err = io.Copy(io.Discard, fr)
	return h, err
}

// frameWriter hashes what it writes and stops at the first write after ctx ended.
type frameWriter struct {
	ctx context.Context
	w   io.Writer
	sum hash.Hash
}

func (f *frameWriter) Write(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := f.w.Write(p)
	f.sum.Write(p[:n])
	return n, err
}

// writeBackup writes the header, lets stream write Badger's frames, then the trailer.
func writeBackup(ctx context.Context, w io.Writer, h BackupHeader, stream func(io.Writer) error) error {
	fw := &frameWriter{ctx: ctx, w: w, sum: sha256.New()}
	if _, err := io.WriteString(fw, h.line()); err != nil {
		return err
	}
	if err := stream(fw); err != nil {
		return err
	}
	var end [8]byte
	binary.LittleEndian.PutUint64(end[:], endMarker)
	sum := fw.sum.Sum(nil)
	if _, err := w.Write(append(end[:], sum...)); err != nil {
		return err
	}
	return ctx.Err()
}

// frameReader passes Badger's frames through, checking each length, and answers io.EOF
// only at a trailer whose checksum matches what came before it.
type frameReader struct {
	r    *bufio.Reader
	sum  hash.Hash
	left uint64 // bytes of the current frame still to pass on
	head []byte // the current frame's length, still to pass on
	done bool
}

func newFrameReader(r *bufio.Reader) (*frameReader, BackupHeader, error) {
	h, err := ReadBackupHeader(r)
	if err != nil {
		return nil, h, err
	}
	f := &frameReader{r: r, sum: sha256.New()}
	f.sum.Write([]byte(h.line()))
	return f, h, nil
}

func (f *frameReader) Read(p []byte) (int, error) {
	if f.done {
		return 0, io.EOF
	}
	if len(f.head) == 0 && f.left == 0 {
		var n [8]byte
		if _, err := io.ReadFull(f.r, n[:]); err != nil {
			return 0, badBackup("it is truncated (no end marker)")
		}
		size := binary.LittleEndian.Uint64(n[:])
		if size == endMarker {
			want := f.sum.Sum(nil)
			got := make([]byte, len(want))
			if _, err := io.ReadFull(f.r, got); err != nil {
				return 0, badBackup("it is truncated (in its checksum)")
			}
			if !bytes.Equal(got, want) {
				return 0, badBackup("its checksum does not match its content")
			}
			if _, err := f.r.ReadByte(); !errors.Is(err, io.EOF) {
				return 0, badBackup("it goes on after its end marker")
			}
			f.done = true
			return 0, io.EOF
		}
		if size > maxFrame {
			return 0, badBackup("a frame of %d bytes", size)
		}
		f.sum.Write(n[:])
		f.head, f.left = n[:], size
	}
	if len(f.head) > 0 {
		n := copy(p, f.head)
		f.head = f.head[n:]
		return n, nil
	}
	if uint64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.r.Read(p)
	f.sum.Write(p[:n])
	f.left -= uint64(n)
	if errors.Is(err, io.EOF) {
		if f.left > 0 {
			return n, badBackup("it is truncated (in a frame)")
		}
		err = nil
	}
	return n, err
}
