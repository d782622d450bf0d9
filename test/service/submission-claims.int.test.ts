import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { createMatchClaims } from '../../src/postgres/match-claims.js';
import { createSubmissionBatcher, type ResultQueue } from '../../src/service/submission-batcher.js';
import { testConfig } from '../support/env.js';
import { openServices, type Services } from '../support/services.js';

let s: Services;
beforeAll(async () => {
  s = openServices(testConfig());
  // postgres.js learns the array types on its first connection: a pool's very first query cannot
  // send a uuid[] (the API's pool has run its start-up probe by the time it claims anything).
  await s.pg.sql`select 1`;
});
afterAll(async () => {
  await s?.close();
});

/** Records what would reach Kafka, one entry per produce request. */
function recordingQueue() {
  const sends: MatchResultMessage[][] = [];
  const queue: ResultQueue = {
    send: async (messages) => {
      sends.push([...messages]);
    },
  };
  return { queue, sends };
}

function match(
  matchId: string,
  results: Array<[string, number]>,
  seasonId = 1,
  endedAt = '2026-11-30T10:00:00.000Z',
): MatchResultMessage[] {
  return results.map(([playerId, points]) => ({ v: 1, matchId, seasonId, endedAt, playerId, points }));
}

const outcome = (p: Promise<void>) =>
  p.then(
    () => 'accepted',
    (err: { code?: string }) => err.code ?? String(err),
  );

describe('matchId claims (the authoritative conflict check)', () => {
  it('refuses the same matchId with other points sent ~10 ms after the first, before either is in PostgreSQL', async () => {
    const { queue, sends } = recordingQueue();
    const batcher = createSubmissionBatcher({ queue, claims: createMatchClaims(s.pg.sql) });
    const id = randomUUID();
    const first = outcome(
      batcher.send(
        match(id, [
          ['1', 10],
          ['2', 20],
        ]),
      ),
    );
    // The scenario's input, not a wait: the second request arrives ~10 ms later, in a claim round of its own.
    await new Promise((r) => setTimeout(r, 10));
    const second = outcome(
      batcher.send(
        match(id, [
          ['1', 99],
          ['2', 20],
        ]),
      ),
    );
    expect([await first, await second]).toEqual(['accepted', 'CONFLICT']);
    expect(sends.flat().map((m) => m.points)).toEqual([10, 20]);
  });

  it('in one round: the first of two conflicting submissions wins, an identical one is an idempotent accept', async () => {
    const { queue, sends } = recordingQueue();
    const batcher = createSubmissionBatcher({ queue, claims: createMatchClaims(s.pg.sql) });
    const id = randomUUID();
    const outcomes = await Promise.all([
      outcome(
        batcher.send(
          match(id, [
            ['1', 10],
            ['2', 20],
          ]),
        ),
      ),
      outcome(
        batcher.send(
          match(id, [
            ['2', 21],
            ['1', 10],
          ]),
        ),
      ),
      outcome(
        batcher.send(
          match(id, [
            ['2', 20],
            ['1', 10],
          ]),
        ),
      ), // same payload, other order: a retry
      outcome(
        batcher.send(
          match(
            id,
            [
              ['1', 10],
              ['2', 20],
            ],
            2,
          ),
        ),
      ), // another season
    ]);
    expect(outcomes).toEqual(['accepted', 'CONFLICT', 'accepted', 'CONFLICT']);
    expect(sends).toHaveLength(1); // one produce for the round
  });

  it('holds across API processes (two batchers, two connection pools)', async () => {
    const other = openServices(testConfig());
    await other.pg.sql`select 1`;
    try {
      const a = createSubmissionBatcher({ queue: recordingQueue().queue, claims: createMatchClaims(s.pg.sql) });
      const b = createSubmissionBatcher({ queue: recordingQueue().queue, claims: createMatchClaims(other.pg.sql) });
      const ids = Array.from({ length: 20 }, () => randomUUID());
      const outcomes = await Promise.all(
        ids.flatMap((id) => [outcome(a.send(match(id, [['7', 1]]))), outcome(b.send(match(id, [['7', 2]])))]),
      );
      for (let i = 0; i < ids.length; i++) {
        expect([outcomes[2 * i], outcomes[2 * i + 1]].sort()).toEqual(['CONFLICT', 'accepted']);
      }
      // A retry of the winner is accepted by either process.
      const winner = outcomes[0] === 'accepted' ? [['7', 1]] : [['7', 2]];
      expect(await outcome(b.send(match(ids[0]!, winner as Array<[string, number]>)))).toBe('accepted');
    } finally {
      await other.close();
    }
  });

  it('coalesces concurrent submissions into few produce requests, each answered after its request', async () => {
    const { queue, sends } = recordingQueue();
    const rounds: number[] = [];
    const batcher = createSubmissionBatcher({
      queue,
      claims: createMatchClaims(s.pg.sql),
      // 10 submissions of 10 messages (about 180 bytes each, no metadata) per request, not 11.
      maxRequestBytes: 19_000,
      onRound: (r) => rounds.push(r.submissions),
    });
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        outcome(
          batcher.send(
            match(
              randomUUID(),
              Array.from({ length: 10 }, (_, j) => [String(100 + i * 10 + j), j] as [string, number]),
            ),
          ),
        ),
      ),
    );
    expect(outcomes.every((o) => o === 'accepted')).toBe(true);
    expect(sends.flat()).toHaveLength(500);
    expect(sends.every((m) => m.length <= 100)).toBe(true); // maxRequestBytes
    expect(rounds).toHaveLength(5);
  });

  it('refuses a match too large for one produce request with BAD_USER_INPUT, claiming and sending nothing', async () => {
    const { queue, sends } = recordingQueue();
    const batcher = createSubmissionBatcher({ queue, claims: createMatchClaims(s.pg.sql), maxRequestBytes: 2_000 });
    const big = match(randomUUID(), [['1', 1]]).map((m) => ({
      ...m,
      metadata: JSON.stringify({ k: 'x'.repeat(1_000) }),
    }));
    await expect(batcher.send([...big, ...big.map((m) => ({ ...m, seasonId: 2 }))])).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'results',
    });
    expect(sends).toEqual([]);
    const [claimed] = await s.pg.sql`select count(*)::int as n from match_claims where match_id = ${big[0]!.matchId}`;
    expect(claimed!.n).toBe(0);
  });

  it('answers UNAVAILABLE and produces nothing when claims cannot be taken', async () => {
    const { queue, sends } = recordingQueue();
    const batcher = createSubmissionBatcher({
      queue,
      claims: { claim: () => Promise.reject(new Error('connection refused')) },
    });
    expect(await outcome(batcher.send(match(randomUUID(), [['1', 1]])))).toBe('UNAVAILABLE');
    expect(sends).toHaveLength(0);
  });

  it('meets a different payload of the matchId whose endedAt is less than a day away, and recognises a retry at any age', async () => {
    const batcher = createSubmissionBatcher({ queue: recordingQueue().queue, claims: createMatchClaims(s.pg.sql) });
    const id = randomUUID();
    const at = (iso: string) => match(id, [['5', 50]], 1, iso);
    expect(await outcome(batcher.send(at('2026-10-01T23:30:00.000Z')))).toBe('accepted');
    // The same payload two months on: its keys are the first's, in partitions long cold.
    expect(await outcome(batcher.send(at('2026-10-01T23:30:00.000Z')))).toBe('accepted');
    // Other endedAt, the same day, the next day (23 h later), and the day before.
    expect(await outcome(batcher.send(at('2026-10-01T00:00:00.000Z')))).toBe('CONFLICT');
    expect(await outcome(batcher.send(at('2026-10-02T22:30:00.000Z')))).toBe('CONFLICT');
    expect(await outcome(batcher.send(at('2026-09-30T23:59:59.000Z')))).toBe('CONFLICT');
    // Three days away is past the claim's reach: another match as far as claims can tell (docs/design.md#storage).
    expect(await outcome(batcher.send(at('2026-10-04T12:00:00.000Z')))).toBe('accepted');
  });
});
