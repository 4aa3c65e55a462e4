package main

import (
	"errors"
	"io/fs"
	"testing"
)

// The soft limit is 75 % of the cgroup's, v2 before v1; none when GOMEMLIMIT is set,
// when the cgroup has no limit ("max", v1's huge number) or no file is readable.
func TestSoftMemoryLimit(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			if v, ok := m[name]; ok {
				return []byte(v), nil
			}
			return nil, fs.ErrNotExist
		}
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOMEMLIMIT" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		name  string
		env   string
		files map[string]string
		want  int64
	}{
		{"v2", "", map[string]string{cgroupMemoryFiles[0]: "2000000000\n"}, 1_500_000_000},
		{"v1", "", map[string]string{cgroupMemoryFiles[1]: "1000000000\n"}, 750_000_000},
		{"v2 first", "", map[string]string{cgroupMemoryFiles[0]: "1000", cgroupMemoryFiles[1]: "5000"}, 750},
		{"v2 no limit", "", map[string]string{cgroupMemoryFiles[0]: "max\n"}, 0},
		{"v1 no limit", "", map[string]string{cgroupMemoryFiles[1]: "9223372036854771712\n"}, 0},
		{"no cgroup", "", nil, 0},
		{"GOMEMLIMIT wins", "1GiB", map[string]string{cgroupMemoryFiles[0]: "2000000000"}, 0},
	} {
		got, from := softMemoryLimit(env(c.env), files(c.files))
		if got != c.want || (got > 0) != (from != "") {
			t.Errorf("%s: got %d from %q; want %d", c.name, got, from, c.want)
		}
	}
	if _, err := files(nil)("x"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the fake file system must report missing files")
	}
}
