// The console's audit page (docs/operations.md#audit-trail): the trail newest first, a page at a
// time with the auditLog query's filters (before, seasonId, action), and all of it that matches
// as an NDJSON download like `npm run cli -- audit`. Read-only: nothing here writes the trail.
import type { ServerResponse } from 'node:http';
import { badInput } from '../domain/errors.js';
import type { AuditEntry, AuditFilter } from '../service/audit-trail.js';
import { positiveId } from './actions.js';
import { sendDownload } from './download.js';
import type { ConsoleRoute } from './routes.js';

/** Entries a page holds at most (as the auditLog query). */
const PAGE_MAX = 500;

/** The filters of a query string: seasonId, action, before (all optional). */
function filterOf(query: URLSearchParams): Omit<AuditFilter, 'first'> {
  const id = (name: string) => (query.get(name) ? positiveId(query.get(name), name) : null);
  const action = query.get('action') || null;
  if (action !== null && !/^[a-z_]{1,64}$/.test(action)) throw badInput('action', 'action must be snake_case');
  return { seasonId: id('seasonId'), action, before: id('before') };
}

export function createAuditView(deps: { list(f: AuditFilter): Promise<AuditEntry[]> }) {
  return {
    /** One page, newest first; `first` 1..500 (50 by default). */
    async page(query: URLSearchParams) {
      const first = query.get('first') ? positiveId(query.get('first'), 'first') : 50;
      if (first > PAGE_MAX) throw badInput('first', `first must be in 1..${PAGE_MAX}`);
      return deps.list({ ...filterOf(query), first });
    },
    /** Every matching entry, newest first, one JSON object a line, page after page. */
    async export(query: URLSearchParams, res: ServerResponse) {
      const filter = filterOf(query);
      await sendDownload(res, { name: 'audit.ndjson', type: 'application/x-ndjson; charset=utf-8' }, async (write) => {
        for (let before = filter.before; ;) {
          const page = await deps.list({ ...filter, before, first: PAGE_MAX });
          await write(page.map((e) => `${JSON.stringify(e)}\n`).join(''));
          if (page.length < PAGE_MAX) return;
          before = page.at(-1)!.id;
        }
      });
    },
  };
}

export const auditRoutes = (a: ReturnType<typeof createAuditView>): ConsoleRoute[] => [
  { method: 'GET', path: /^\/audit$/, run: (r) => a.page(r.query) },
  { method: 'GET', path: /^\/audit\/export$/, run: (r) => a.export(r.query, r.res) },
];
