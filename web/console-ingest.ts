// The console's ingest page: consumer lag per partition of the results topic, results/s and the
// DLQ's size (read again every 5 s while the page is open), the dead letters a page at a time with
// why and where from, and their replay (one, or all not yet replayed) after a fix.
import { button, call, row, when } from './console-api.js';

type Say = (text: string, error?: boolean) => void;

interface Health {
  at: string;
  partitions: Array<{ partition: number; committed: string | null; high: string; lag: number }>;
  lag: number;
  ratePerSecond: number | null;
  dlq: { partitions: Array<{ partition: number; low: string; high: string }>; size: number };
}

interface Letter {
  partition: number;
  offset: string;
  timestamp: string;
  code: string;
  field: string;
  reason: string;
  source: { topic: string; partition: number | null; offset: string | null };
  kind: string;
  matchId: string | null;
  playerId: string | null;
  points: number | null;
  replayed: { at: string; actor: string } | null;
  refusal: string | null;
}

interface LetterPage {
  partition: number;
  low: string;
  high: string;
  letters: Letter[];
}

const $ = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;
/** The DLQ page shown: its partition, and the offset it ends before (undefined: the newest). */
const at: { partition: number; before?: string } = { partition: 0 };
let timer: ReturnType<typeof setInterval> | undefined;

async function showHealth(): Promise<void> {
  const h = await call<Health>('GET', '/ingest');
  const rate = h.ratePerSecond === null ? '…' : h.ratePerSecond.toFixed(1);
  $('#ingest-summary').textContent = `lag ${h.lag} · ${rate} results/s · DLQ ${h.dlq.size} · read ${when(h.at)}`;
  $('#ingest-summary').dataset['dlq'] = String(h.dlq.size);
  $<HTMLTableSectionElement>('#lag-table tbody').replaceChildren(
    ...h.partitions.map((p) => row([p.partition, p.committed ?? '-', p.high, p.lag])),
  );
}

function replay(l: Letter, say: Say): void {
  call<{ replayed: boolean }>('POST', `/ingest/dlq/${l.partition}/${l.offset}/replay`).then(
    (r) => (
      say(r.replayed ? `Dead letter ${l.offset} replayed.` : `Dead letter ${l.offset} was already replayed.`),
      showLetters(say)
    ),
    (err: Error) => say(err.message, true),
  );
}

function letterRow(l: Letter, say: Say): HTMLTableRowElement {
  const state = l.replayed ? `replayed ${when(l.replayed.at)} by ${l.replayed.actor}` : (l.refusal ?? 'new');
  const actions = l.replayed || l.refusal ? [] : [button('Replay', () => replay(l, say))];
  const source = l.source.partition === null ? '-' : `${l.source.partition}/${l.source.offset}`;
  const tr = row(
    [
      l.offset,
      when(l.timestamp),
      l.code,
      l.reason,
      source,
      l.matchId ?? '-',
      l.playerId ?? '-',
      l.points ?? '-',
      state,
    ],
    ...actions,
  );
  tr.dataset['offset'] = l.offset;
  tr.dataset['state'] = l.replayed ? 'replayed' : l.refusal ? 'refused' : 'new';
  return tr;
}

async function showLetters(say: Say): Promise<void> {
  const q = new URLSearchParams({ partition: String(at.partition), ...(at.before ? { before: at.before } : {}) });
  const page = await call<LetterPage>('GET', `/ingest/dlq?${q}`);
  $<HTMLTableSectionElement>('#dlq-table tbody').replaceChildren(...page.letters.map((l) => letterRow(l, say)));
  const first = page.letters[page.letters.length - 1]?.offset;
  $<HTMLButtonElement>('#dlq-older').disabled = first === undefined || BigInt(first) <= BigInt(page.low);
  $<HTMLButtonElement>('#dlq-newer').disabled = at.before === undefined || BigInt(at.before) >= BigInt(page.high);
  const kept = BigInt(page.high) - BigInt(page.low);
  $('#dlq-range').textContent =
    kept > 0n ? `partition ${page.partition}: ${kept} kept, offsets ${page.low}–${BigInt(page.high) - 1n}` : 'none';
  $<HTMLButtonElement>('#dlq-older').dataset['before'] = first ?? '';
  $<HTMLButtonElement>('#dlq-newer').dataset['before'] = page.letters[0]
    ? String(BigInt(page.letters[0].offset) + 51n)
    : '';
}

export async function showIngest(say: Say): Promise<void> {
  // Read again while the page is open: two readings give results/s.
  timer ??= setInterval(() => {
    if ($('#ingest-view').hidden) return;
    showHealth().catch((err: Error) => say(err.message, true));
  }, 5_000);
  await showHealth();
  await showLetters(say);
}

export function setUpIngest(say: Say): void {
  const page = (before: string | undefined) => {
    at.before = before;
    showLetters(say).catch((err: Error) => say(err.message, true));
  };
  $('#dlq-older').addEventListener('click', () => page($('#dlq-older').dataset['before']));
  $('#dlq-newer').addEventListener('click', () => page($('#dlq-newer').dataset['before']));
  $('#dlq-replay-all').addEventListener('click', () => {
    if (!confirm('Replay every dead letter not replayed yet to the results topic?')) return;
    call<{ replayed: number; refused: number; more: boolean }>('POST', '/ingest/dlq/replay-all').then(
      (r) => {
        const more = r.more ? ' More remain: replay all again.' : '';
        say(`${r.replayed} dead letters replayed, ${r.refused} not replayable.${more}`);
        return Promise.all([showHealth(), showLetters(say)]);
      },
      (err: Error) => say(err.message, true),
    );
  });
}
