package actors

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/sys/unix"
)

// threadNice is the calling thread's nice value. The raw getpriority system call, which
// unix.Getpriority returns as it is, answers 20-nice (1 for nice 19, 20 for nice 0) so
// that its result is never negative.
func threadNice(t *testing.T) int {
	t.Helper()
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - raw
}

// threadNices reads the nice value of every thread of the process (field 19 of
// /proc/self/task/<tid>/stat), by thread id.
func threadNices(t *testing.T) map[int]int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/self/task/*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue // the thread has exited
		}
		// The fields after the command name, which may hold spaces, start at field 3.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		tid, err1 := strconv.Atoi(filepath.Base(d))
		nice, err2 := strconv.Atoi(f[19-3])
		if err1 != nil || err2 != nil {
			t.Fatalf("cannot parse %s: %q", d, b)
		}
		out[tid] = nice
	}
	return out
}

func TestPasswordHasherWorkersRunAtNice19(t *testing.T) {
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	base := 20 - raw // the main thread's nice: the process's normal one
	if base >= hashThreadNice {
		t.Skipf("the test process already runs at nice %d", base)
	}
	if !eventually(func() bool { return hasherWorkers() == 0 }) {
		t.Fatalf("%d hasher workers alive before the test", hasherWorkers())
	}

	const workers = 2
	type seen struct{ tid, nice, raw int }
	arrived := make(chan seen, workers)
	release := make(chan struct{})
	h := startPasswordHasher(workers, nil, func(run func()) {
		raw, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
		if err != nil {
			t.Error(err)
		}
		if a, err := unix.SchedGetAttr(unix.Gettid(), 0); err != nil || a.Policy != unix.SCHED_IDLE {
			t.Errorf("worker thread scheduling: %+v, %v; want the SCHED_IDLE policy", a, err)
		}
		arrived <- seen{unix.Gettid(), 20 - raw, raw}
		<-release
		run()
	})
	defer h.close()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			if _, err := h.generate(context.Background(), "correct horse", bcrypt.MinCost); err != nil {
				t.Error(err)
			}
		})
	}
	pool := map[int]bool{}
	for range workers {
		select {
		case s := <-arrived:
			if s.raw != 1 || s.nice != 19 {
				t.Errorf("worker thread %d: getpriority %d, nice %d; want 1, nice 19", s.tid, s.raw, s.nice)
			}
			pool[s.tid] = true
		case <-time.After(failsafe):
			t.Fatal("the workers never took the jobs")
		}
	}
	if len(pool) != workers {
		t.Fatalf("jobs ran on threads %v; want %d distinct ones", pool, workers)
	}

	// Meanwhile, a goroutine outside the pool runs at the process's nice, even on a
	// thread of its own started now.
	outside := make(chan int)
	for range 8 {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if a, err := unix.SchedGetAttr(unix.Gettid(), 0); err != nil || a.Policy != unix.SCHED_NORMAL {
				t.Errorf("a goroutine outside the pool is scheduled %+v, %v; want SCHED_NORMAL", a, err)
			}
			outside <- threadNice(t)
		}()
	}
	for range 8 {
		if n := <-outside; n != base {
			t.Errorf("a goroutine outside the pool runs at nice %d; want %d", n, base)
		}
	}
	// And so does every thread of the process but the workers' (threads of hashers
	// closed by earlier tests may take a moment to exit).
	var wrong map[int]int
	if !eventually(func() bool {
		wrong = map[int]int{}
		for tid, n := range threadNices(t) {
			if !pool[tid] && n != base {
				wrong[tid] = n
			}
			if pool[tid] && n != hashThreadNice {
				t.Errorf("/proc says worker thread %d runs at nice %d", tid, n)
			}
		}
		return len(wrong) == 0
	}) {
		t.Errorf("threads outside the pool at another nice than %d: %v", base, wrong)
	}

	close(release)
	wg.Wait()
	h.close()
	// The workers' threads end with them: the lowered priority is not handed on.
	if !eventually(func() bool {
		for tid := range threadNices(t) {
			if pool[tid] {
				return false
			}
		}
		return true
	}) {
		t.Error("a worker's thread outlived the hasher")
	}
	for tid, n := range threadNices(t) {
		if n != base {
			t.Errorf("after close, thread %d (pid %d) runs at nice %d; want %d", tid, os.Getpid(), n, base)
		}
	}
}
