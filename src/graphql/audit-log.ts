import { badInput } from '../domain/errors.js';
import type { AuditEntry } from '../service/audit-trail.js';
import { requireScope } from './auth.js';
import { builder } from './builder.js';

/** Most audit entries one query returns. */
const AUDIT_PAGE_MAX = 500;

const AuditEntryRef = builder.objectRef<AuditEntry>('AuditEntry').implement({
  description: 'One admin action: who, what, when, with which arguments (secrets redacted), and how it ended.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    at: t.expose('at', { type: 'DateTime' }),
    actor: t.exposeString('actor', { description: "the API key's name, or cli:<os user>" }),
    action: t.exposeString('action'),
    seasonId: t.exposeInt('seasonId', { nullable: true }),
    playerId: t.exposeID('playerId', { nullable: true }),
    matchId: t.exposeID('matchId', { nullable: true }),
    reason: t.exposeString('reason'),
    outcome: t.exposeString('outcome', { description: "'ok', or the error code the action failed with" }),
    details: t.field({
      type: 'JSONObject',
      nullable: true,
      resolve: (e) =>
        typeof e.details === 'object' && e.details !== null ? (e.details as Record<string, unknown>) : null,
    }),
  }),
});

builder.queryField('auditLog', (t) =>
  t.field({
    type: [AuditEntryRef],
    description: `Scope: admin. The audit trail, newest first: \`first\` (1..${AUDIT_PAGE_MAX}) entries with an id below \`before\`, of one season or action when given. Nothing in ladder changes or deletes an entry.`,
    args: {
      first: t.arg.int({ required: false, defaultValue: 50 }),
      before: t.arg.int({ required: false }),
      seasonId: t.arg.int({ required: false }),
      action: t.arg.string({ required: false }),
    },
    resolve: async (_root, args, ctx) => {
      await requireScope(ctx, 'admin');
      const first = args.first ?? 50;
      if (!Number.isInteger(first) || first < 1 || first > AUDIT_PAGE_MAX)
        throw badInput('first', `first must be an integer in 1..${AUDIT_PAGE_MAX}`);
      return ctx.services.auditLog({ ...args, first });
    },
  }),
);
