// The console's audit page: the audit trail newest first, 50 entries a page, filtered by action
// and season (the auditLog query's filters), older pages on request, and the matching entries as
// an NDJSON download (like `npm run cli -- audit`). Read-only.
import { call, row, when } from './console-api.js';

interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  seasonId: number | null;
  playerId: string | null;
  reason: string;
  outcome: string;
  details: unknown;
}

type Say = (text: string, error?: boolean) => void;

const PAGE = 50;
const $ = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;
/** The ids each shown page ends before, newest page first: [null] is the newest page. */
let pages: Array<number | null> = [null];

/** The form's filters as a query string (without `before`). */
function filters(): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData($<HTMLFormElement>('#audit-form')))
    if (String(v).trim()) q.set(k, String(v).trim());
  return q;
}

async function load(): Promise<void> {
  const q = filters();
  $<HTMLAnchorElement>('#audit-export').href = `/console/api/audit/export?${q}`;
  const before = pages.at(-1);
  if (before != null) q.set('before', String(before));
  q.set('first', String(PAGE));
  const entries = await call<AuditEntry[]>('GET', `/audit?${q}`);
  $<HTMLTableSectionElement>('#audit-table tbody').replaceChildren(
    ...entries.map((e) => {
      const tr = row([
        e.id,
        when(e.at),
        e.actor,
        e.action,
        e.seasonId ?? '-',
        e.playerId ?? '-',
        e.outcome,
        e.reason,
        e.details === null ? '' : JSON.stringify(e.details),
      ]);
      tr.dataset['action'] = e.action;
      if (e.outcome !== 'ok') tr.classList.add('revoked');
      return tr;
    }),
  );
  $<HTMLButtonElement>('#audit-older').disabled = entries.length < PAGE;
  $<HTMLButtonElement>('#audit-older').dataset['before'] = String(entries.at(-1)?.id ?? '');
  $<HTMLButtonElement>('#audit-newer').disabled = pages.length === 1;
}

export async function showAudit(): Promise<void> {
  pages = [null];
  await load();
}

export function setUpAudit(say: Say): void {
  const reload = () => load().catch((err: Error) => say(err.message, true));
  $<HTMLFormElement>('#audit-form').addEventListener('submit', (e) => {
    e.preventDefault();
    pages = [null];
    void reload();
  });
  $('#audit-older').addEventListener('click', () => {
    pages.push(Number($('#audit-older').dataset['before']));
    void reload();
  });
  $('#audit-newer').addEventListener('click', () => {
    if (pages.length > 1) pages.pop();
    void reload();
  });
}
