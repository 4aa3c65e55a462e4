// Package schedules owns power and backup schedules: a cron expression per schedule,
// one timer per schedule entity, a run that claims its due time durably before it
// starts the machine's task, waits for the task's end (tasks.Tasks.Wait), and
// records the outcome; missed runs within the grace run late, once.
package schedules
