import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeArgsFor } from './process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the CLI as operators do (built: see nodeArgsFor), a real child process, with `env` on top of this process's. */
export function runCli(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgsFor('src/cli/main.ts'), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
