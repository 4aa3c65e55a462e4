// A cron evaluator for the schedules page: it reads what the server's parser
// (robfig/cron v3: five fields, an optional leading seconds field, and the
// descriptors) accepts, says it in words and computes the next runs in the schedule's
// time zone, so the page shows them before anything is saved. The server stays the
// judge: an expression read here may still be refused there (its bounds on how often a
// schedule runs), and the API's field error is what the form shows.

const bounds = { second: [0, 59], minute: [0, 59], hour: [0, 23], dom: [1, 31], month: [1, 12], dow: [0, 6] };
const monthNames = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const dayNames = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
export const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const descriptors = {
  '@yearly': '0 0 0 1 1 *', '@annually': '0 0 0 1 1 *', '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0', '@daily': '0 0 0 * * *', '@midnight': '0 0 0 * * *', '@hourly': '0 0 * * * *',
};

function value(s, kind) {
  const names = kind === 'month' ? monthNames : kind === 'dow' ? dayNames : null;
  const i = names ? names.indexOf(s.toLowerCase()) : -1;
  if (i >= 0) return kind === 'month' ? i + 1 : i;
  if (!/^\d+$/.test(s)) throw new Error(`${kind}: ${s} is not a number`);
  return Number(s);
}

// field reads one field into its set of values; star says it was * or ? (the
// day-of-month and day-of-week fields combine differently then).
function field(text, kind) {
  const [lo, hi] = bounds[kind];
  const set = new Set();
  let star = false;
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : value(stepText, kind);
    if (stepText !== undefined && (!/^\d+$/.test(stepText) || step < 1)) throw new Error(`${kind}: step ${stepText}`);
    let a, b;
    if (range === '*' || range === '?') {
      [a, b] = [lo, hi];
      if (step === 1) star = true;
    } else {
      const [x, y] = range.split('-');
      a = value(x, kind);
      b = y === undefined ? (stepText === undefined ? a : hi) : value(y, kind);
    }
    if (a < lo || b > hi || a > b) throw new Error(`${kind}: ${range} is outside ${lo}-${hi}`);
    for (let v = a; v <= b; v += step) set.add(v);
  }
  return { set, star };
}

// duration reads a Go duration (90m, 1h30m, 45s).
function duration(s) {
  const units = { h: 3600e3, m: 60e3, s: 1e3, ms: 1 };
  let ms = 0, rest = s;
  const re = /^(\d+(?:\.\d+)?)(h|ms|m|s)/;
  if (!rest) throw new Error('no duration');
  while (rest) {
    const m = re.exec(rest);
    if (!m) throw new Error(`${s} is not a duration`);
    ms += Number(m[1]) * units[m[2]];
    rest = rest.slice(m[0].length);
  }
  // robfig rounds @every up to whole seconds, and at least one.
  return Math.max(1000, Math.ceil(ms / 1000) * 1000);
}

// parse reads an expression: { every } for @every, else the six fields' sets.
export function parse(expr) {
  let s = expr.trim();
  if (s.startsWith('@every ')) return { every: duration(s.slice(7).trim()) };
  if (s.startsWith('@')) {
    if (!descriptors[s]) throw new Error(`unknown descriptor ${s}`);
    s = descriptors[s];
  }
  const parts = s.split(/\s+/);
  if (parts.length === 5) parts.unshift('0');
  if (parts.length !== 6) throw new Error('wants five fields: minute hour day-of-month month day-of-week');
  const [second, minute, hour, dom, month, dow] = parts.map((p, i) => field(p, Object.keys(bounds)[i]));
  return { second, minute, hour, dom, month, dow };
}

// wall is an instant's date and time as read on a clock in zone.
function wallReader(zone) {
  const fmt = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', weekday: 'short' });
  return (t) => {
    const p = {};
    for (const { type, value: v } of fmt.formatToParts(new Date(t))) p[type] = v;
    return { month: +p.month, dom: +p.day, hour: +p.hour % 24, minute: +p.minute, dow: dayNames.indexOf(p.weekday.toLowerCase().slice(0, 3)) };
  };
}

const MIN = 60e3;

// next answers the n first runs strictly after from (a Date), in zone (an IANA name),
// as Dates; fewer when the expression fires less within the next five years.
export function next(c, zone, from, n = 5) {
  const out = [];
  if (c.every) {
    const t0 = Math.floor(from.getTime() / 1000) * 1000;
    for (let i = 1; i <= n; i++) out.push(new Date(t0 + i * c.every));
    return out;
  }
  const wall = wallReader(zone);
  const dayMatch = (w) => ((c.dom.star || c.dow.star)
    ? c.dom.set.has(w.dom) && c.dow.set.has(w.dow)
    : c.dom.set.has(w.dom) || c.dow.set.has(w.dow));
  const seconds = [...c.second.set].sort((a, b) => a - b);
  // Minute by minute, but a day or an hour that cannot match is skipped whole.
  let t = Math.floor(from.getTime() / MIN) * MIN;
  const end = t + 5 * 366 * 24 * 60 * MIN;
  while (t < end && out.length < n) {
    const w = wall(t);
    if (!c.month.set.has(w.month) || !dayMatch(w)) {
      // To the next midnight; a day that lost an hour to daylight saving lands past it,
      // so step back to the day's first minute.
      t += (24 * 60 - w.hour * 60 - w.minute) * MIN;
      const w2 = wall(t);
      if (w2.dom !== w.dom && (w2.hour || w2.minute)) t -= (w2.hour * 60 + w2.minute) * MIN;
      continue;
    }
    if (!c.hour.set.has(w.hour)) { t += (60 - w.minute) * MIN; continue; }
    if (c.minute.set.has(w.minute)) {
      for (const s of seconds) {
        const at = t + s * 1000;
        if (at > from.getTime() && out.length < n) out.push(new Date(at));
      }
    }
    t += MIN;
  }
  return out;
}

const list = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);
const two = (n) => String(n).padStart(2, '0');
const sorted = (f) => [...f.set].sort((a, b) => a - b);

// words says when an expression runs, in English.
export function words(c) {
  if (c.every) {
    const s = c.every / 1000;
    return `every ${s % 3600 === 0 ? `${s / 3600} hour(s)` : s % 60 === 0 ? `${s / 60} minute(s)` : `${s} second(s)`}`;
  }
  const mins = sorted(c.minute), hours = sorted(c.hour), secs = sorted(c.second);
  let when;
  if (mins.length === 1 && hours.length === 1) when = `at ${two(hours[0])}:${two(mins[0])}`;
  else if (mins.length === 1 && c.hour.star) when = `every hour at minute ${mins[0]}`;
  else if (c.minute.star && c.hour.star) when = 'every minute';
  else if (hours.length * mins.length <= 6) when = `at ${list(hours.flatMap((h) => mins.map((m) => `${two(h)}:${two(m)}`)))}`;
  else when = `at minute ${c.minute.star ? 'every' : list(mins)} of ${c.hour.star ? 'every hour' : `hour ${list(hours)}`}`;
  if (secs.length !== 1 || secs[0] !== 0) when = `${when}, second ${c.second.star ? 'every' : list(secs)}`;
  const on = [];
  const dows = sorted(c.dow);
  if (!c.dom.star) on.push(`on day ${list(sorted(c.dom))} of the month`);
  if (!c.dow.star) on.push(`on ${list(dows.map((d) => days[d]))}`);
  let text = `${when}${on.length ? ` ${on.join(' or ')}` : when.startsWith('every') ? '' : ' every day'}`;
  if (!c.month.star) text += ` in ${list(sorted(c.month).map((m) => months[m - 1]))}`;
  return text;
}
