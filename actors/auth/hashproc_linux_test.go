package auth

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHashingProcessRunsIdle: the hashing process's working thread is SCHED_IDLE at
// nice 19, and this process's threads are not.
func TestHashingProcessRunsIdle(t *testing.T) {
	h := childHasher()
	defer h.close()
	_, pid := hashIn(t, h, testHash(t), "correct horse")
	if pid == 0 {
		t.Fatal("hashed in this process; want a child")
	}
	idle := 0
	for tid, f := range threadStats(t, pid) {
		if f.policy == 5 { // SCHED_IDLE
			idle++
			if f.nice != hashThreadNice {
				t.Errorf("idle thread %d at nice %d; want %d", tid, f.nice, hashThreadNice)
			}
		}
	}
	if idle == 0 {
		t.Fatalf("no SCHED_IDLE thread in the hashing process %d", pid)
	}
	for tid, f := range threadStats(t, os.Getpid()) {
		if f.policy != 0 || f.nice == hashThreadNice {
			t.Errorf("thread %d of this process: policy %d, nice %d; want normal", tid, f.policy, f.nice)
		}
	}
}

type threadStat struct{ nice, policy int }

// threadStats reads each thread's nice (field 19) and policy (field 41) of
// /proc/<pid>/task/<tid>/stat.
func threadStats(t *testing.T, pid int) map[int]threadStat {
	t.Helper()
	dirs, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]threadStat{}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue // the thread has exited
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		tid, _ := strconv.Atoi(filepath.Base(d))
		nice, err1 := strconv.Atoi(f[19-3])
		policy, err2 := strconv.Atoi(f[41-3])
		if err1 != nil || err2 != nil {
			t.Fatalf("cannot parse %s: %q", d, b)
		}
		out[tid] = threadStat{nice, policy}
	}
	return out
}
