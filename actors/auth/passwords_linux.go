package auth

import (
	"errors"

	"golang.org/x/sys/unix"
)

// hashThreadNice is the nice value of the password hashing threads: the lowest
// priority, so that hashing only takes the CPU the API leaves idle.
const hashThreadNice = 19

// lowerThreadPriority puts the calling OS thread of a hashing process in the
// SCHED_IDLE class at nice hashThreadNice. On Linux both belong to each thread
// (PRIO_PROCESS with a thread id). The caller must be locked to its thread.
//
// Nice 19 alone was measured not to be enough: under the fair scheduler a nice-19
// thread still keeps the core for the rest of its slice when an API thread wakes, and
// a login burst tripled the API's p99. The kernel preempts a SCHED_IDLE thread as soon
// as any normal thread wants its core. Both steps are tried; the errors are joined.
func lowerThreadPriority() error {
	tid := unix.Gettid()
	errNice := unix.Setpriority(unix.PRIO_PROCESS, tid, hashThreadNice)
	errIdle := unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE, Nice: hashThreadNice}, 0)
	return errors.Join(errNice, errIdle)
}
