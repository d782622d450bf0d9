// The console's live charts page: results stored/s, reads/s, p99 of reads and of submissions,
// open subscriptions. While the page is shown it reads /console/api/metrics every POLL_MS (the
// text /metrics answers: in a cluster every process's, aggregated by the primary), turns each two
// readings into a point (web/console-charts-math.ts) and keeps WINDOW_MS of points in memory,
// drawn as small SVG lines. It stops polling once the page is hidden (another page, sign-out);
// opening it again starts a fresh history.
import { call } from './console-api.js';
import { pointBetween, polylinePoints, readingOf, type Point, type Reading } from './console-charts-math.js';

type Say = (text: string, error?: boolean) => void;

const POLL_MS = 2_000;
const WINDOW_MS = 5 * 60_000;
const WIDTH = 300;
const HEIGHT = 60;
const SVG = 'http://www.w3.org/2000/svg';

const CHARTS: Array<{ id: string; title: string; unit: string; value(p: Point): number | undefined }> = [
  { id: 'results', title: 'results stored', unit: '/s', value: (p) => p.resultsPerSecond },
  { id: 'reads', title: 'reads', unit: '/s', value: (p) => p.readsPerSecond },
  { id: 'read-p99', title: 'read p99', unit: ' ms', value: (p) => p.readP99Ms },
  { id: 'submit-p99', title: 'submit p99', unit: ' ms', value: (p) => p.submitP99Ms },
  { id: 'subscriptions', title: 'subscriptions', unit: '', value: (p) => p.subscriptions },
];

let points: Point[] = [];
let last: Reading | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

const view = () => document.querySelector<HTMLElement>('#charts-view')!;
const format = (n: number | undefined, unit: string) =>
  n === undefined ? '-' : `${n >= 100 ? Math.round(n) : Math.round(n * 10) / 10}${unit}`;

function el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function chart(c: (typeof CHARTS)[number], now: number): HTMLElement {
  const values = points.map((p) => ({ at: p.at, value: c.value(p) }));
  const max = Math.max(0, ...values.map((v) => v.value ?? 0));
  const current = values.at(-1)?.value;
  const figure = document.createElement('figure');
  figure.id = `chart-${c.id}`;
  figure.dataset['value'] = String(current ?? '');
  const caption = document.createElement('figcaption');
  caption.textContent = `${c.title} `;
  const strong = document.createElement('strong');
  strong.className = 'value';
  strong.textContent = format(current, c.unit);
  caption.append(strong, ` (max ${format(max, c.unit)}, last ${WINDOW_MS / 60_000} min)`);
  const svg = el('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': c.title });
  const line = polylinePoints(values, { from: now - WINDOW_MS, to: now, max, width: WIDTH, height: HEIGHT });
  svg.append(
    el('line', { x1: 0, y1: HEIGHT, x2: WIDTH, y2: HEIGHT, class: 'axis' }),
    el('polyline', { points: line, class: 'line' }),
  );
  // The latest point as a dot: seen from the first point on, before there is a line.
  const [x, y] = line.split(' ').at(-1)!.split(',');
  if (y !== undefined) svg.append(el('circle', { cx: x!, cy: y, r: 2.5, class: 'dot' }));
  figure.append(caption, svg);
  return figure;
}

function draw(): void {
  const now = points.at(-1)?.at ?? Date.now();
  document.querySelector('#charts')!.replaceChildren(...CHARTS.map((c) => chart(c, now)));
}

async function poll(): Promise<void> {
  if (view().hidden) return clearInterval(timer);
  const { text } = await call<{ text: string }>('GET', '/metrics');
  const reading = readingOf(text, Date.now());
  if (last) points = [...points, pointBetween(last, reading)].filter((p) => p.at > reading.at - WINDOW_MS);
  last = reading;
  draw();
}

export async function showCharts(say: Say): Promise<void> {
  clearInterval(timer);
  points = [];
  last = undefined;
  draw();
  let failing = false;
  const tick = () =>
    poll().then(
      () => {
        if (failing) say('');
        failing = false;
      },
      (err: Error) => {
        say(`Charts: ${err.message}`, true);
        failing = true;
      },
    );
  timer = setInterval(() => void tick(), POLL_MS);
  await poll();
}
