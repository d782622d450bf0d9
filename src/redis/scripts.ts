// The one loader of ladder's Lua scripts. Each file lua/<name>-<numKeys>.lua, its includes pasted
// in (lua-includes.ts), becomes an ioredis command (defineCommand, or the clients' `scripts`
// option), which falls back from EVALSHA to EVAL when Redis restarted with an empty script cache;
// nothing else in the project calls EVAL.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis, Result } from 'ioredis';
import { resolveLuaIncludes } from './lua-includes.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** lua/applyStandings-5.lua: how many members changed */
    applyStandings(
      board: string,
      marker: string,
      copy: string,
      versions: string,
      groups: string,
      expireAt: string,
      channel: string,
      label: string,
      step: string,
      group: string,
      pointsStep: string,
      rule: 'GT' | 'LAST',
      ...memberScorePairs: string[]
    ): Result<number, Context>;
    /** lua/lastFill-2.lua: how many members a rebuild wrote to a LAST board's copy */
    lastFill(
      copy: string,
      marker: string,
      step: string,
      ttlMs: string,
      ...scoreMemberPairs: string[]
    ): Result<number, Context>;
    /** lua/readTop-2.lua: [version, size, firstRank, member, score, ...] */
    readTop(
      board: string,
      versions: string,
      offset: string,
      count: string,
      step: string,
      label: string,
    ): Result<Array<string | number>, Context>;
    /** lua/readAround-2.lua: [version, size, firstPosition, firstRank, member, score, ...] or [version, size] */
    readAround(
      board: string,
      versions: string,
      member: string,
      radius: string,
      step: string,
      label: string,
    ): Result<Array<string | number>, Context>;
    /** lua/readEntries-2.lua: [version, size, member, score, rank, ...] */
    readEntries(
      board: string,
      versions: string,
      step: string,
      label: string,
      ...members: string[]
    ): Result<Array<string | number>, Context>;
    /** lua/setStandings-4.lua: may lower or remove scores (cheater removal, repairs) */
    setStandings(
      board: string,
      marker: string,
      copy: string,
      versions: string,
      channel: string,
      label: string,
      ...memberScorePairs: string[]
    ): Result<number, Context>;
    /** lua/shardWrite-1.lua: [[member, old, new, localRank, ...], [absent member, score, ...]] */
    shardWrite(
      shard: string,
      expireAt: string,
      step: string,
      mode: 'present' | 'any' | 'set',
      ...memberScorePairs: string[]
    ): Result<[Array<string | number>, string[]], Context>;
    /** lua/shardSet-1.lua: [[member, old, new, localRank, ...], [conflicting member, ...]] */
    shardSet(
      shard: string,
      expireAt: string,
      step: string,
      ...memberExpectedScoreTriples: string[]
    ): Result<[Array<string | number>, string[]], Context>;
    /** lua/shardSwap-3.lua: 1 swapped in, 0 emptied (no copy) */
    shardSwap(copy: string, shard: string, retired: string, expireAt: string): Result<number, Context>;
    /** lua/groupTotal-2.lua: the group's total now (-1: empty, removed from the group board) */
    groupTotal(
      groupBoard: string,
      groups: string,
      group: string,
      step: string,
      bestOf: string,
      expireAt: string,
    ): Result<number, Context>;
    /** lua/boardEvent-1.lua: the board's new version */
    boardEvent(
      versions: string,
      channel: string,
      label: string,
      kind: string,
      changes: string,
    ): Result<number, Context>;
    /** lua/shardedHead-4.lua: [moving 0|1, move epoch, board version, shard sizes or ""] */
    shardedHead(
      moving: string,
      moves: string,
      versions: string,
      sizes: string,
      label: string,
    ): Result<[number, number, number, string], Context>;
    /** lua/shardProbe-1.lua: [size, score or "", position or -1, localRank or 0, ...] */
    shardProbe(shard: string, step: string, ...members: string[]): Result<Array<string | number>, Context>;
    /** lua/shardRange-1.lua: [size, firstLocalRank, member, score, ...] */
    shardRange(shard: string, first: string, last: string, step: string): Result<Array<string | number>, Context>;
    /** lua/swapBoard-4.lua: a status, read with swapStatus */
    swapBoard(
      copy: string,
      board: string,
      retired: string,
      versions: string,
      expireAt: string,
      channel: string,
      label: string,
    ): Result<number, Context>;
  }
}

/**
 * What a script's status return means, read in this one place. The counts and data other scripts
 * return are decoded by their callers (board-reader.ts).
 */
const SWAP_STATUS: Record<number, 'swapped' | 'noCopy'> = { 1: 'swapped', 0: 'noCopy' };

/** swapBoard-4.lua: 'swapped', or 'noCopy' when there was no rebuilt copy (nothing changed). */
export function swapStatus(returned: number): 'swapped' | 'noCopy' {
  const status = SWAP_STATUS[returned];
  if (!status) throw new Error(`swapBoard returned ${returned}, which no version of the script returns`);
  return status;
}

const luaDir = fileURLToPath(new URL('./lua/', import.meta.url));

// The scripts are lua/*.lua; lua/includes/ holds the blocks they include (lua-includes.ts).
const scripts = readdirSync(luaDir)
  .filter((f) => f.endsWith('.lua'))
  .map((file) => {
    const match = /^([a-zA-Z]+)-(\d+)\.lua$/.exec(file);
    if (!match) throw new Error(`Lua file ${file} is not named <command>-<numKeys>.lua`);
    const lua = resolveLuaIncludes(luaDir + file, (path) => readFileSync(path, 'utf8'));
    return { name: match[1]!, numberOfKeys: Number(match[2]), lua };
  });

/**
 * Every script as ioredis's `scripts` option wants it: a client built with it, and each of its
 * duplicates (they copy the options), answers the scripts' commands.
 */
export function scriptDefinitions(): Record<string, { lua: string; numberOfKeys: number }> {
  return Object.fromEntries(scripts.map((s) => [s.name, { lua: s.lua, numberOfKeys: s.numberOfKeys }]));
}

/**
 * Puts a script into Redis's script cache now. Needed before calling it inside MULTI/EXEC: there a
 * NOSCRIPT error cannot fall back to EVAL inside the transaction, and after an aborted EXEC
 * (WATCH) ioredis believes the script it queued was loaded when it never ran.
 */
export async function preloadScript(redis: Redis, name: string): Promise<void> {
  const script = scripts.find((s) => s.name === name);
  if (!script) throw new Error(`no Lua script named ${name}`);
  await redis.script('LOAD', script.lua);
}
