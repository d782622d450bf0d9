// Command-line options of the benches.

/** `--name value` or `--name=value` as a positive integer; else `fromEnv` (a BENCH_* variable), else `fallback`. */
export function intArg(name: string, fallback: number, fromEnv?: string): number {
  const argv = process.argv.slice(2);
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const raw = i < 0 ? fromEnv : argv[i]!.includes('=') ? argv[i]!.split('=')[1] : argv[i + 1];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${raw}`);
  return n;
}
