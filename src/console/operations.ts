// The console's operations page (docs/operations.md#console): a season's rebuild (Redis from
// PostgreSQL) and reconcile (drift reported, optionally repaired) as jobs whose progress the page
// polls (jobs.ts), and a closed season's final standings as a CSV or NDJSON download. The same
// service functions as the GraphQL mutations (rebuildLeaderboard, reconcileLeaderboard) and the
// CLI's `export`, audited under the same action names with the session's key as actor.
import type { ServerResponse } from 'node:http';
import type { Services } from '../graphql/context.js';
import { badInput } from '../domain/errors.js';
import { parseExportFilter, type exportFinalStandings } from '../service/export-final-standings.js';
import { auditedFor, positiveId, type ConsoleActionDeps } from './actions.js';
import { sendDownload } from './download.js';
import type { ConsoleJobs } from './jobs.js';
import type { ConsoleRoute } from './routes.js';
import type { ConsoleSession } from './sessions.js';

export interface ConsoleOperationDeps extends Pick<ConsoleActionDeps, 'audit' | 'onRecordFailed'> {
  services: Pick<Services, 'rebuild' | 'reconcile'>;
  /** Standings on the season's live boards per PostgreSQL: a job's progress total (app/board-maintenance.ts). */
  liveMembers(seasonId: number): Promise<number>;
  /** Streams a closed season's final standings (app/season-jobs.ts exportFinal). */
  exportFinal(
    input: Parameters<typeof exportFinalStandings>[1],
    write: (chunk: string) => Promise<void>,
  ): Promise<{ rows: number }>;
  jobs: ConsoleJobs;
}

const CONTENT_TYPE = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson; charset=utf-8' };

export function createConsoleOperations(deps: ConsoleOperationDeps) {
  const { services, jobs } = deps;
  return {
    rebuild(session: ConsoleSession, idText: string) {
      const seasonId = positiveId(idText, 'id');
      return jobs.start(
        { kind: 'rebuild', seasonId },
        (progress) =>
          auditedFor(deps, session, { action: 'rebuild', seasonId }, async () => {
            progress.total(await deps.liveMembers(seasonId));
            return services.rebuild(seasonId, progress.done);
          }),
        (r) => r.members,
      );
    },
    reconcile(session: ConsoleSession, idText: string, body: { repair?: unknown }) {
      const seasonId = positiveId(idText, 'id');
      const repair = body.repair === true;
      return jobs.start(
        { kind: repair ? 'reconcile (repair)' : 'reconcile', seasonId },
        (progress) =>
          auditedFor(deps, session, { action: 'reconcile', seasonId, details: { repair } }, async () => {
            progress.total(await deps.liveMembers(seasonId));
            return services.reconcile(seasonId, repair, progress.done);
          }),
        (r) => r.total.pgCount,
      );
    },
    async job(id: string) {
      const status = await jobs.get(id);
      if (!status) throw badInput('id', `no job ${id}: unknown, finished over an hour ago, or its process stopped`);
      return status;
    },
    /** Streams the download (download.ts). */
    async exportStandings(session: ConsoleSession, idText: string, query: URLSearchParams, res: ServerResponse) {
      const seasonId = positiveId(idText, 'id');
      const format = query.get('format') ?? 'csv';
      if (format !== 'csv' && format !== 'ndjson') throw badInput('format', `format must be csv or ndjson`);
      const filter = parseExportFilter(query.get('window') ?? undefined, query.get('period') ?? undefined);
      const file = { name: `season-${seasonId}-final.${format}`, type: CONTENT_TYPE[format] };
      return auditedFor(deps, session, { action: 'export_standings', seasonId, details: { format, ...filter } }, () =>
        sendDownload(res, file, (write) => deps.exportFinal({ seasonId, filter, format }, write)),
      );
    },
  };
}

export const operationRoutes = (o: ReturnType<typeof createConsoleOperations>): ConsoleRoute[] => [
  { method: 'POST', path: /^\/seasons\/([^/]+)\/rebuild$/, run: (r) => o.rebuild(r.session, r.params[0]!) },
  { method: 'POST', path: /^\/seasons\/([^/]+)\/reconcile$/, run: (r) => o.reconcile(r.session, r.params[0]!, r.body) },
  { method: 'GET', path: /^\/jobs\/([^/]+)$/, run: (r) => o.job(r.params[0]!) },
  {
    method: 'GET',
    path: /^\/seasons\/([^/]+)\/export$/,
    run: (r) => o.exportStandings(r.session, r.params[0]!, r.query, r.res),
  },
];
