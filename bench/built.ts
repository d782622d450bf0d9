// The benches measure ladder as it runs in production: compiled by `npm run build` and run by plain
// node (a TypeScript loader adds CPU per call and memory per closure: tsx keeps function names by
// defining a `name` property on every closure).
import { spawnSync } from 'node:child_process';

/** Builds ladder and returns the node arguments that run it. */
export function builtLadder(): string[] {
  const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status})`);
  return ['--enable-source-maps', 'dist/main.js'];
}
