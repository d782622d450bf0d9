// Command-line options of the benches.

/** The value of `--name value` or `--name=value`; undefined when the option is not given. */
export function stringArg(name: string): string | undefined {
  const argv = process.argv.slice(2);
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return argv[i]!.includes('=') ? argv[i]!.slice(argv[i]!.indexOf('=') + 1) : argv[i + 1];
}

/** `--name value` or `--name=value` as a positive integer; else `fromEnv` (a BENCH_* variable), else `fallback`. */
export function intArg(name: string, fallback: number, fromEnv?: string): number {
  const raw = stringArg(name) ?? fromEnv;
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${raw}`);
  return n;
}
