// Lua has no modules inside Redis: a script is one text. A block several scripts share (the
// version step) lives in one file under lua/includes/ and is pasted where a script says
//   --- @include "includes/raiseVersion"
// the convention of BullMQ's script loader (its commands/includes/), resolved by this small
// function of ours. Paths are relative to the including file; ".lua" may be left out.
import { dirname, join, relative } from 'node:path';

const INCLUDE_LINE = /^---[ \t]*@include[ \t]+(["'])(.+?)\1[ \t;]*$/;

/**
 * The text of the Lua file at `path` with each `--- @include "x"` line replaced by x's text,
 * includes of includes too. A file included twice in one script (directly or through another
 * include) is pasted once, at its first include. A missing file or a cycle throws, naming the
 * including file and line.
 */
export function resolveLuaIncludes(path: string, readFile: (path: string) => string): string {
  const pasted = new Set<string>();
  const root = dirname(path);

  function resolve(file: string, chain: string[]): string {
    const lines = readFile(file).split('\n');
    return lines
      .map((line, i) => {
        const match = INCLUDE_LINE.exec(line.trim());
        if (!match) return line;
        const target = join(dirname(file), match[2]!.endsWith('.lua') ? match[2]! : `${match[2]}.lua`);
        const where = `${relative(root, file) || file}:${i + 1}`;
        if (chain.includes(target)) {
          throw new Error(
            `Lua include cycle at ${where}: ${[...chain, target].map((f) => relative(root, f)).join(' -> ')}`,
          );
        }
        if (pasted.has(target)) return '';
        pasted.add(target);
        let text: string;
        try {
          text = resolve(target, [...chain, target]);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          throw new Error(`Lua include "${match[2]}" at ${where} not found (${relative(root, target)})`);
        }
        return text.endsWith('\n') ? text.slice(0, -1) : text;
      })
      .join('\n');
  }
  return resolve(path, [path]);
}
