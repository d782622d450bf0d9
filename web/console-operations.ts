// The console's operations page: per season, reconcile (drift reported), repair, rebuild, each a
// job on the server whose progress this page polls (GET /jobs/<id>) until its report; a closed
// season's final standings as a CSV or NDJSON download.
import { button, call, row } from './console-api.js';

interface SeasonView {
  id: number;
  name: string;
  status: string;
}

interface Tally {
  pgCount: number;
  redisCount: number;
  missing: number;
  extra: number;
  different: number;
  repaired: number;
}

interface JobStatus {
  id: string;
  kind: string;
  seasonId: number;
  state: 'running' | 'done' | 'failed';
  done: number;
  total: number;
  report: null | { boards: number; members: number; durationMs: number } | ReconcileReport;
  error: string | null;
}

interface ReconcileReport {
  repair: boolean;
  boards: Array<Tally & { window: string; period: string; scope?: string }>;
  total: Tally;
  durationMs: number;
}

type Say = (text: string, error?: boolean) => void;

const POLL_MS = 500;
const $ = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;
/** The job the panel follows: a job started later takes the panel over. */
let followed = '';

function exportLink(seasonId: number, format: 'csv' | 'ndjson'): HTMLAnchorElement {
  const a = document.createElement('a');
  a.href = `/console/api/seasons/${seasonId}/export?format=${format}`;
  a.download = `season-${seasonId}-final.${format}`;
  a.textContent = `Export ${format.toUpperCase()}`;
  a.className = 'export';
  return a;
}

const isReconcile = (r: JobStatus['report']): r is ReconcileReport => r !== null && 'total' in r;

function showReport(job: JobStatus): void {
  const body = $<HTMLTableSectionElement>('#job-boards tbody');
  const r = job.report;
  $('#job-boards').hidden = !isReconcile(r);
  if (!isReconcile(r)) {
    body.replaceChildren();
    if (r) $('#job-state').textContent = `Rebuilt ${r.boards} boards, ${r.members} members in ${r.durationMs} ms.`;
    return;
  }
  const line = (name: string, t: Tally) =>
    row([name, t.pgCount, t.redisCount, t.missing, t.extra, t.different, t.repaired]);
  body.replaceChildren(
    ...r.boards.map((b) => line(`${b.window} ${b.period}${b.scope ? ` (${b.scope})` : ''}`, b)),
    line('total', r.total),
  );
  const drift = r.total.missing + r.total.extra + r.total.different;
  $('#job-state').textContent =
    drift === 0
      ? `No drift: Redis matches PostgreSQL (${r.durationMs} ms).`
      : `Drift: ${r.total.missing} missing, ${r.total.extra} extra, ${r.total.different} different` +
        (r.repair ? `; ${r.total.repaired} repaired.` : ' (reported only: repair to fix).');
}

/** Shows a job's status, then polls it while it runs and the page is shown. */
async function follow(id: string, say: Say): Promise<void> {
  followed = id;
  for (;;) {
    const job = await call<JobStatus>('GET', `/jobs/${encodeURIComponent(id)}`);
    if (followed !== id) return;
    const view = $('#job');
    view.hidden = false;
    view.dataset['state'] = job.state;
    view.dataset['id'] = job.id;
    $('#job-title').textContent = `${job.kind} of season ${job.seasonId}`;
    const bar = $<HTMLProgressElement>('#job-progress');
    bar.max = Math.max(job.total, 1);
    bar.value = Math.min(job.done, bar.max);
    $('#job-count').textContent = `${job.done} of ${job.total || '?'} members`;
    if (job.state === 'running') $('#job-state').textContent = 'Running...';
    else if (job.state === 'failed') {
      $('#job-state').textContent = `Failed: ${job.error ?? 'unknown error'}`;
      say(`The ${job.kind} of season ${job.seasonId} failed.`, true);
    } else showReport(job);
    if (job.state !== 'running' || $('#operations-view').hidden) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function start(say: Say, path: string, body: unknown, question?: string): void {
  if (question && !confirm(question)) return;
  $('#job-boards').hidden = true;
  call<JobStatus>('POST', path, body)
    .then((job) => follow(job.id, say))
    .catch((err: Error) => say(err.message, true));
}

export async function showOperations(say: Say): Promise<void> {
  const seasons = await call<SeasonView[]>('GET', '/seasons');
  $<HTMLTableSectionElement>('#operations-table tbody').replaceChildren(
    ...seasons
      .sort((a, b) => b.id - a.id)
      .map((s) => {
        const actions =
          s.status === 'CLOSED'
            ? [exportLink(s.id, 'csv'), exportLink(s.id, 'ndjson')]
            : [
                button('Reconcile', () => start(say, `/seasons/${s.id}/reconcile`, { repair: false })),
                button('Repair', () =>
                  start(
                    say,
                    `/seasons/${s.id}/reconcile`,
                    { repair: true },
                    `Reconcile season ${s.id} and write PostgreSQL's values over any drift in Redis?`,
                  ),
                ),
                button('Rebuild', () =>
                  start(
                    say,
                    `/seasons/${s.id}/rebuild`,
                    {},
                    `Rebuild every live board of season ${s.id} from PostgreSQL?`,
                  ),
                ),
              ];
        const tr = row([s.id, s.name, s.status], ...actions);
        tr.dataset['id'] = String(s.id);
        return tr;
      }),
  );
  // Back on the page while a job runs: follow it again.
  const job = $('#job').dataset;
  if (job['state'] === 'running' && job['id']) follow(job['id'], say).catch((err: Error) => say(err.message, true));
}
