// One event stream for the whole console, started at sign-in: pages listen for the
// events that name what they show and change it in place, with no polling and no
// reload (as the Incus UI invalidates on its websocket).
import { effect, signal } from '@preact/signals';
import { events, session } from './api.js';

const listeners = new Set();

// tasks are the tasks seen on the stream, by id: a page shows a task's progress
// from here the moment its events arrive.
export const tasks = signal({});

// listen calls fn(type, data) for every event until the function it answers is called.
export function listen(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

let stop = null;
effect(() => {
  const signedIn = !!session.value;
  if (signedIn && !stop) {
    stop = events((type, data) => {
      if (type === 'task.updated') tasks.value = { ...tasks.value, [data.id]: data };
      for (const fn of listeners) fn(type, data);
    });
  } else if (!signedIn && stop) {
    stop();
    stop = null;
  }
});
