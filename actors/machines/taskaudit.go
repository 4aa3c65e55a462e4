package machines

import (
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
)

// A task is recorded in the audit log twice: its acceptance, in the batch that starts
// it (the request's entry: result ok, the task accepted), and its end, in the batch
// that records the outcome, so that a power action's result is in the log and not
// only that it was asked for. The end's entry is a new one under the actor, target,
// client and request id of the request that started the task; its action names the
// task ("task vm.reboot"), its result is ok or task_failed with the task's error.

// TaskAuditPrefix begins the action of an audit entry that records a task's end.
const TaskAuditPrefix = "task "

// TaskFailedResult is the result of the audit entry of a task that failed.
const TaskFailedResult = "task_failed"

// outcomeAudit is the entry recording the end of task, started by the request whose
// entry started is; nil when no request started it (a job's, or one accepted before
// entries were kept).
func outcomeAudit(started *kit.AuditEntry, task *tasks.Task) *kit.AuditEntry {
	if started == nil {
		return nil
	}
	e := *started
	e.ID, e.Time = "", *task.FinishedAt
	e.Action = TaskAuditPrefix + task.Type
	e.Result, e.Reason = kit.AuditResultOK, ""
	if task.Status == tasks.TaskFailed {
		e.Result = TaskFailedResult
		e.Reason = kit.Deref(task.Error)
	}
	return &e
}
