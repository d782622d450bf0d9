// The audit trail (docs/operations.md#audit-trail): every admin action, from GraphQL or the CLI, one
// row, which nothing in ladder updates or deletes (drizzle/0010's triggers refuse it). The store is
// postgres/audit-log.ts.

/** One admin action as recorded: who, what, on which season, with which arguments, and how it ended. */
export interface AuditRecord {
  /** The API key's name, or `cli:<os user>`. */
  actor: string;
  /** snake_case: create_season, rebuild, reconcile, keys_create, ... */
  action: string;
  seasonId?: number | null;
  playerId?: string | null;
  reason: string;
  /** The arguments (secrets redacted: redactSecrets) and what came of them. */
  details?: Record<string, unknown> | null;
  /** 'ok', or the error code the action failed with. */
  outcome: string;
}

/** A recorded row. */
export interface AuditEntry extends Required<Omit<AuditRecord, 'details'>> {
  id: number;
  at: Date;
  matchId: string | null;
  details: unknown;
}

const SECRET = /key|secret|token|password/i;

/** `value` with every field whose name looks like a secret replaced by '[redacted]', at any depth. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET.test(k) ? '[redacted]' : redactSecrets(v)]),
  );
}

/** Where records go (postgres/audit-log.ts). */
export interface AuditLog {
  record(r: AuditRecord): Promise<number>;
  list(f: AuditFilter): Promise<AuditEntry[]>;
}

/** A page of the trail: newest first, up to `first` entries with an id below `before`, of one season or action. */
export interface AuditFilter {
  first: number;
  before?: number | null;
  seasonId?: number | null;
  action?: string | null;
}

/**
 * Runs an admin action and records it with its outcome: 'ok', or the failure's code (a domain
 * error's, else INTERNAL). The action's own result or error is what the caller gets; a record that
 * cannot be written is reported to `onRecordFailed`, never hides the action's outcome.
 */
export async function audited<T>(
  log: Pick<AuditLog, 'record'>,
  entry: Omit<AuditRecord, 'outcome'>,
  action: () => Promise<T>,
  onRecordFailed: (err: unknown) => void,
): Promise<T> {
  const write = (outcome: string) => log.record({ ...entry, outcome }).catch(onRecordFailed);
  try {
    const result = await action();
    await write('ok');
    return result;
  } catch (err) {
    const code = (err as { code?: unknown })?.code;
    await write(typeof code === 'string' && /^[A-Z_]+$/.test(code) ? code : 'INTERNAL');
    throw err;
  }
}
