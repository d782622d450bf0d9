// Startup time and memory of the service, built (`node dist/main.js`, after `npm run build`)
// beside the loader's (`node --import tsx src/main.ts`): `npm run bench:startup`. Each run starts
// one process (API_WORKERS=1, every role) on the dev stack, times it from spawn to the first 200
// from /ready, reads its RSS then, and stops it. Runs alternate so both see the same machine load.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, request } from '../test/support/process.js';

const RUNS = Number(process.env.RUNS ?? 5);
const modes = {
  built: ['--enable-source-maps', 'dist/main.js'],
  tsx: ['--import', 'tsx', 'src/main.ts'],
} as const;

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function once(args: readonly string[]): Promise<{ ms: number; rss: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      API_WORKERS: '1',
      LOG_LEVEL: 'error',
      SEASON_SCHEDULER_INTERVAL_MS: '0',
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited ${child.exitCode}`);
      const ok = await request(port, '/ready').then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return { ms: performance.now() - started, rss: rssMiB(child.pid!) };
      await sleep(20);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const results: Record<string, Array<{ ms: number; rss: number }>> = { built: [], tsx: [] };
for (let i = 0; i < RUNS; i++) {
  for (const [mode, args] of Object.entries(modes)) results[mode]!.push(await once(args));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [mode, runs] of Object.entries(results)) {
  console.log(
    `${mode.padEnd(6)} start to ready: median ${median(runs.map((r) => r.ms)).toFixed(0)} ms (${runs.map((r) => r.ms.toFixed(0)).join(', ')}); ` +
      `RSS when ready: median ${median(runs.map((r) => r.rss)).toFixed(0)} MiB (${runs.map((r) => r.rss.toFixed(0)).join(', ')})`,
  );
}
