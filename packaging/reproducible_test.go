package packaging

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// commitTime is the time of the commit the test builds its packages from.
var commitTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestPackagesReproducible runs `make deb rpm` twice on one commit, in a scratch copy of
// the Makefile and packaging/ with a stand-in binary (the packaging is under test, not
// the build), the files' modification times changed between the two runs: the packages
// come out byte for byte the same, every file in the .deb carries the commit's time, and
// dist/SHA256SUMS lists the binary and both packages with their right sums.
func TestPackagesReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nfpm and two packages")
	}
	for _, tool := range []string{"git", "make", "go", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s: %v", tool, err)
		}
	}
	work := scratchCommit(t)
	stub := filepath.Join(work, "dist", "vmplane-linux-amd64")
	if err := os.MkdirAll(filepath.Dir(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stub, []byte("a stand-in for the binary\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notices := filepath.Join(work, "dist", "third-party-notices")
	if err := os.WriteFile(notices, []byte("a stand-in for the notices\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	first := makePackages(t, work)
	// The second run's sources are an hour newer, as after a fresh checkout.
	later := time.Now().Add(time.Hour)
	err := filepath.WalkDir(work, func(p string, d os.DirEntry, err error) error {
		if err != nil || strings.Contains(p, string(filepath.Separator)+".git") {
			return err
		}
		return os.Chtimes(p, later, later)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range first {
		if strings.HasSuffix(name, ".deb") || strings.HasSuffix(name, ".rpm") {
			if err := os.Remove(filepath.Join(work, "dist", name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	second := makePackages(t, work)
	for name, data := range first {
		if !bytes.Equal(data, second[name]) {
			t.Errorf("%s differs between two builds of the same commit", name)
		}
	}

	var deb, rpm string
	for name := range first {
		switch {
		case strings.HasSuffix(name, ".deb"):
			deb = name
		case strings.HasSuffix(name, ".rpm"):
			rpm = name
		}
	}
	if deb == "" || rpm == "" {
		t.Fatalf("dist/ holds %v; want a .deb and an .rpm", keys(first))
	}
	for file, mtime := range debTimes(t, first[deb]) {
		if !mtime.Equal(commitTime) {
			t.Errorf("%s: %s dated %s; want the commit's time %s", deb, file, mtime, commitTime)
		}
	}

	sums, err := os.ReadFile(filepath.Join(work, "dist", "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: %q is not a sha256sum line", line)
		}
		listed[name] = sum
	}
	for _, name := range []string{"vmplane-linux-amd64", "third-party-notices", deb, rpm} {
		h := sha256.Sum256(second[name])
		if listed[name] != hex.EncodeToString(h[:]) {
			t.Errorf("SHA256SUMS: %s is %q; want its sum %x", name, listed[name], h)
		}
	}
}

// scratchCommit copies the Makefile and packaging/ (as git lists them) into a new git
// repository and commits them at commitTime; it returns the repository.
func scratchCommit(t *testing.T) string {
	t.Helper()
	list, err := exec.Command("git", "-C", "..", "ls-files", "-z", "Makefile", "packaging").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	work := t.TempDir()
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		info, err := os.Stat(filepath.Join("..", rel))
		if err != nil {
			continue // deleted in the working tree
		}
		data, err := os.ReadFile(filepath.Join("..", rel))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(work, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	date := commitTime.Format(time.RFC3339)
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=test", "-c", "user.email=test@vmplane.dev", "commit", "-q", "-m", "packaging"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return work
}

// makePackages runs `make deb rpm` for amd64 in work and returns dist/'s files.
func makePackages(t *testing.T, work string) map[string][]byte {
	t.Helper()
	cmd := exec.Command("make", "deb", "rpm", "DIST_PLATFORMS=linux/amd64")
	cmd.Dir = work
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SOURCE_DATE_EPOCH=") && !strings.HasPrefix(kv, "MAKEFLAGS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make deb rpm: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(filepath.Join(work, "dist"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.Name() == "SHA256SUMS" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(work, "dist", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = data
	}
	return files
}

// debTimes reads a .deb (an ar archive) and returns the modification time of each of
// its members and of every entry of its control and data archives.
func debTimes(t *testing.T, deb []byte) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	r := bufio.NewReader(bytes.NewReader(deb))
	magic := make([]byte, 8)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "!<arch>\n" {
		t.Fatalf("not an ar archive: %q", magic)
	}
	for {
		hdr := make([]byte, 60)
		if _, err := io.ReadFull(r, hdr); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(strings.TrimSpace(string(hdr[0:16])), "/")
		mtime, err1 := strconv.ParseInt(strings.TrimSpace(string(hdr[16:28])), 10, 64)
		size, err2 := strconv.ParseInt(strings.TrimSpace(string(hdr[48:58])), 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("ar header %q", hdr)
		}
		out[name] = time.Unix(mtime, 0).UTC()
		body := make([]byte, size)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		if size%2 == 1 {
			_, _ = r.ReadByte() // members are padded to an even length
		}
		if !strings.HasSuffix(name, ".tar.gz") {
			if strings.Contains(name, ".tar") {
				t.Fatalf("%s: only gzip-compressed members are read here", name)
			}
			continue
		}
		gz, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			out[name+":"+h.Name] = h.ModTime.UTC()
		}
	}
	if len(out) < 5 {
		t.Fatalf("read only %v from the .deb", out)
	}
	return out
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
