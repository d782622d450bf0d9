import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeArgsFor } from './process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What a CLI run printed and how it ended; `stderrLines` with when each arrived, in ms since the spawn. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  stderrLines: Array<{ ms: number; line: string }>;
}

/** Runs the CLI as operators do (built: see nodeArgsFor), a real child process, with `env` on top of this process's. */
export function runCli(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  return startCli(env, ...args).done;
}

/** runCli, with its child process (to kill it). */
export function startCli(
  env: Record<string, string>,
  ...args: string[]
): { child: ChildProcess; done: Promise<CliRun> } {
  const started = Date.now();
  const child = spawn(process.execPath, [...nodeArgsFor('src/cli/main.ts'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const done = new Promise<CliRun>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const stderrLines: CliRun['stderrLines'] = [];
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      const ms = Date.now() - started;
      const unfinished = stderr.lastIndexOf('\n') + 1; // where the last line without its \n began
      stderr += d.toString();
      for (const line of stderr.slice(unfinished).split('\n').slice(0, -1)) stderrLines.push({ ms, line });
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, stderrLines }));
  });
  return { child, done };
}
