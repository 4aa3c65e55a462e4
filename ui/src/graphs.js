// Usage graphs drawn with uPlot: a lazy chunk, fetched the first time a page shows a
// graph. A null bucket of the API (no sample) is a gap in the line, never a zero.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import css from 'uplot/dist/uPlot.min.css' with { type: 'text' };
import { call } from './api.js';
import { ProblemView, bytes } from './format.js';
import { adopt } from './sheet.js';

adopt(css);

export const timeframes = ['hour', 'day', 'week', 'month', 'year'];

const rate = (v) => (v == null ? '–' : `${bytes(v)}/s`);
const pctOf = (v) => (v == null ? '–' : `${v.toFixed(1)}%`);

// charts are the graphs of a usage graph's points: each series picks its values from a
// point (null stays null: a gap).
const charts = [
  { id: 'cpu', title: 'CPU', unit: pctOf, series: [['busy', (p) => (p.cpu == null ? null : p.cpu * 100)]], max: 100 },
  { id: 'mem', title: 'Memory', unit: (v) => (v == null ? '–' : bytes(v)), series: [['used', (p) => p.mem_bytes], ['total', (p) => p.mem_total_bytes]] },
  { id: 'net', title: 'Network', unit: rate, series: [['in', (p) => p.net_in_bps], ['out', (p) => p.net_out_bps]] },
  { id: 'disk', title: 'Disk', unit: rate, series: [['read', (p) => p.disk_read_bps], ['write', (p) => p.disk_write_bps]] },
];

const colours = ['--accent', '--good', '--warn', '--bad'];

// Chart is one uPlot graph, as wide as its box, with a summary in words beside it
// (the canvas says nothing to a screen reader).
function Chart({ chart, points }) {
  const box = useRef(null);
  const x = points.map((p) => Date.parse(p.time) / 1000);
  const ys = chart.series.map(([, pick]) => points.map((p) => pick(p) ?? null));
  useEffect(() => {
    const el = box.current;
    const cs = getComputedStyle(document.documentElement);
    const fg = cs.getPropertyValue('--muted').trim();
    const line = cs.getPropertyValue('--line').trim();
    const axis = { stroke: fg, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } };
    const plot = new uPlot({
      width: el.clientWidth || 300, height: 160,
      series: [{}, ...chart.series.map(([label], i) => ({
        label, stroke: cs.getPropertyValue(colours[i]).trim(), width: 1.5, spanGaps: false,
        value: (_, v) => chart.unit(v),
      }))],
      axes: [axis, { ...axis, size: 84, values: (_, ticks) => ticks.map((v) => chart.unit(v)) }],
      scales: chart.max ? { y: { range: [0, chart.max] } } : { y: { range: (_, lo, hi) => [0, hi > 0 ? hi * 1.1 : 1] } },
      legend: { live: false },
    }, [x, ...ys], el);
    const fit = new ResizeObserver(() => plot.setSize({ width: el.clientWidth || 300, height: 160 }));
    fit.observe(el);
    return () => { fit.disconnect(); plot.destroy(); };
  }, [points]);
  const summary = chart.series.map(([label], i) => {
    const vals = ys[i].filter((v) => v != null);
    return vals.length ? `${label}: last ${chart.unit(vals[vals.length - 1])}, peak ${chart.unit(Math.max(...vals))}` : `${label}: no data`;
  }).join('; ');
  return html`<figure class="chart" data-chart=${chart.id}>
    <figcaption>${chart.title} <span class="muted">${summary}</span></figcaption>
    <div ref=${box} class="chart-box" role="img" aria-label=${`${chart.title}: ${summary}`}></div>
  </figure>`;
}

// Graphs shows the usage graphs of url (a machine's, a node's or the cluster's
// usage-graphs route) for a timeframe the user picks.
export function Graphs({ url }) {
  const [frame, setFrame] = useState('hour');
  const [graph, setGraph] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    setError(null);
    call('GET', `${url}?timeframe=${frame}`).then((g) => live && setGraph(g), (e) => live && setError(e));
    return () => { live = false; };
  }, [url, frame]);
  return html`<div class="graphs">
    <div class="actions" role="group" aria-label="Timeframe">
      ${timeframes.map((t) => html`<button type="button" aria-pressed=${t === frame ? 'true' : 'false'} onClick=${() => setFrame(t)}>${t}</button>`)}
    </div>
    <${ProblemView} error=${error} />
    ${graph?.missing_nodes?.length ? html`<p class="muted">Left out (offline or not answering): ${graph.missing_nodes.join(', ')}</p>` : ''}
    ${graph && (graph.points.length
      ? html`<div class="chart-grid">${charts.map((c) => html`<${Chart} key=${c.id} chart=${c} points=${graph.points} />`)}</div>`
      : html`<p>No samples for this timeframe yet.</p>`)}
  </div>`;
}
