import { requireScope as check, type Scope } from '../service/api-keys.js';
import type { Context, Principal } from './context.js';

/** The caller's principal if it holds `scope`; UNAUTHENTICATED without a key, FORBIDDEN without the scope. */
export async function requireScope(ctx: Context, scope: Scope): Promise<Principal> {
  return check(await ctx.principal(), scope);
}
