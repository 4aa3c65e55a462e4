package actors

import "golang.org/x/sys/unix"

// hashThreadNice is the nice value of the password hashing threads: the lowest
// priority, so that hashing only takes the CPU the API leaves idle.
const hashThreadNice = 19

// lowerThreadPriority sets the calling OS thread's nice value to hashThreadNice. On
// Linux the nice value belongs to each thread (PRIO_PROCESS with a thread id), so the
// rest of the process keeps its priority. The caller must be locked to its thread.
func lowerThreadPriority() error {
	return unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), hashThreadNice)
}

// onMainThread reports whether the calling thread is the process's main thread, whose
// thread id is the process id.
func onMainThread() bool { return unix.Gettid() == unix.Getpid() }
