// The start-up helpers on their own: the dependency wait, the deadline, listen errors.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  beforeDeadline,
  createApiServer,
  listenFailure,
  StartupError,
  waitForDependencies,
  type Dependency,
} from '../../src/app/startup.js';

/** A dependency that fails `failures` times, then answers. */
function flaky(name: string, failures: number): Dependency & { attempts: number } {
  const dep = {
    name,
    where: `${name}.local (${name.toUpperCase()}_URL)`,
    attempts: 0,
    probe: async () => {
      dep.attempts++;
      if (dep.attempts <= failures) throw new Error(`${name} refused`);
    },
  };
  return dep;
}

const waitOptions = (timeoutMs: number, lines: string[], signal = new AbortController().signal) => ({
  deadline: Date.now() + timeoutMs,
  timeoutMs,
  signal,
  status: {} as Record<string, string>,
  report: (line: string) => lines.push(line),
  retryMs: 50,
});

describe('waitForDependencies', () => {
  it('retries each dependency until it answers, one line per failed attempt, and leaves every status ok', async () => {
    const lines: string[] = [];
    const opts = waitOptions(5_000, lines);
    const deps = [flaky('postgres', 0), flaky('kafka', 2)];
    await waitForDependencies(deps, opts);
    expect(deps.map((d) => d.attempts)).toEqual([1, 3]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^waiting for kafka at kafka\.local \(KAFKA_URL\): kafka refused; next try in 0\.05 s, giving up in \d+ s$/,
    );
    expect(opts.status).toEqual({ postgres: 'ok', kafka: 'ok' });
  });

  it('gives up at the deadline with one StartupError naming what is missing, where, and why', async () => {
    const lines: string[] = [];
    const t0 = Date.now();
    const err = await waitForDependencies(
      [flaky('redis', Infinity), flaky('postgres', 0)],
      waitOptions(300, lines),
    ).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).message).toBe(
      'redis at redis.local (REDIS_URL) was not available within 0.3 s (STARTUP_TIMEOUT_MS): redis refused',
    );
    expect((err as StartupError).unavailable).toEqual(['redis']);
    expect(lines.length).toBeGreaterThan(1);
  });

  it('does not wait out a probe that hangs past the deadline', async () => {
    const hung: Dependency = { name: 'kafka', where: 'k (KAFKA_BROKERS)', probe: () => new Promise(() => {}) };
    const t0 = Date.now();
    const err = await waitForDependencies([hung], { ...waitOptions(200, []), attemptTimeoutMs: 60_000 }).catch(
      (e: unknown) => e,
    );
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect((err as Error).message).toContain('kafka at k (KAFKA_BROKERS) was not available within 0.2 s');
  });

  it('stops waiting when the process stops', async () => {
    const abort = new AbortController();
    const redis = flaky('redis', Infinity);
    // Stopped while waiting to retry: once the second failed attempt is reported.
    const report = () => redis.attempts === 2 && abort.abort();
    const err = await waitForDependencies([redis], { ...waitOptions(60_000, [], abort.signal), report }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe('start-up cancelled: the process is stopping');
    expect(redis.attempts).toBe(2);
  });
});

describe('beforeDeadline', () => {
  it('passes a result through, and says what start-up was stuck doing when the deadline comes first', async () => {
    expect(await beforeDeadline(Promise.resolve(7), Date.now() + 1_000, 1_000, () => 'x')).toBe(7);
    const late = beforeDeadline(
      new Promise(() => {}),
      Date.now() + 50,
      60_000,
      () => 'joining the ingest consumer group',
    );
    await expect(late).rejects.toThrow(
      'start-up did not finish within 60 s (STARTUP_TIMEOUT_MS): stuck joining the ingest consumer group',
    );
  });
});

describe('listening', () => {
  it('names the port and the setting when the port is taken', async () => {
    const other = net.createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as net.AddressInfo;
    try {
      await expect(
        createApiServer({ requestTimeoutMs: 10_000, headersTimeoutMs: 5_000 }).listen(port, '127.0.0.1'),
      ).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use: set PORT to another port`);
    } finally {
      other.close();
    }
  });

  it('maps the other listen errors to the setting that fixes them', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    expect(listenFailure(err('EACCES'), '0.0.0.0', 80).message).toBe(
      'port 80 on 0.0.0.0 needs privileges this process lacks: set PORT to a port above 1023',
    );
    expect(listenFailure(err('EADDRNOTAVAIL'), '10.9.9.9', 4000).message).toBe(
      '10.9.9.9 is not an address of this machine: set HOST (0.0.0.0 listens on every interface)',
    );
    const other = err('EMFILE');
    expect(listenFailure(other, 'h', 1)).toBe(other);
  });
});
