import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveLuaIncludes } from '../../src/redis/lua-includes.js';
import { scriptDefinitions } from '../../src/redis/scripts.js';

// Files in memory: path -> text; a missing path fails as readFileSync does.
function files(map: Record<string, string>): (path: string) => string {
  return (path) => {
    const text = map[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  };
}

describe('resolveLuaIncludes', () => {
  it('pastes an include in place of its line, relative to the including file, ".lua" optional', () => {
    const read = files({
      '/lua/a-1.lua': 'local x = 1\n--- @include "includes/step"\nreturn step(x)\n',
      '/lua/includes/step.lua': 'local function step(n) return n + 1 end\n',
    });
    expect(resolveLuaIncludes('/lua/a-1.lua', read)).toBe(
      'local x = 1\nlocal function step(n) return n + 1 end\nreturn step(x)\n',
    );
  });

  it('pastes a file once per script, at its first include, also when reached through another include', () => {
    const read = files({
      '/lua/a-1.lua': '--- @include \'includes/b.lua\'\n--- @include "includes/c"\n--- @include "includes/c"\nreturn 1',
      '/lua/includes/b.lua': '--- @include "c"\nlocal b = c',
      '/lua/includes/c.lua': 'local c = 1',
    });
    expect(resolveLuaIncludes('/lua/a-1.lua', read)).toBe('local c = 1\nlocal b = c\n\n\nreturn 1');
  });

  it('leaves other comments alone: only a line of its own that says --- @include is one', () => {
    const text = '-- @include "x" is how a script includes\nlocal s = \'--- @include "x"\'\nreturn s';
    expect(resolveLuaIncludes('/lua/a-0.lua', files({ '/lua/a-0.lua': text }))).toBe(text);
  });

  it('names the including file, its line and the path looked for when an include is missing', () => {
    const read = files({ '/lua/a-1.lua': 'local x = 1\n--- @include "includes/nope"\nreturn x' });
    expect(() => resolveLuaIncludes('/lua/a-1.lua', read)).toThrow(
      'Lua include "includes/nope" at a-1.lua:2 not found (includes/nope.lua)',
    );
  });

  it('names a missing include of an include by the include that asked for it', () => {
    const read = files({
      '/lua/a-1.lua': '--- @include "includes/b"',
      '/lua/includes/b.lua': 'local b = 1\n--- @include "gone"',
    });
    expect(() => resolveLuaIncludes('/lua/a-1.lua', read)).toThrow(
      'Lua include "gone" at includes/b.lua:2 not found (includes/gone.lua)',
    );
  });

  it('refuses a cycle', () => {
    const read = files({
      '/lua/a-1.lua': '--- @include "includes/b"',
      '/lua/includes/b.lua': '--- @include "c"',
      '/lua/includes/c.lua': '--- @include "b"',
    });
    expect(() => resolveLuaIncludes('/lua/a-1.lua', read)).toThrow(
      'Lua include cycle at includes/c.lua:1: a-1.lua -> includes/b.lua -> includes/c.lua -> includes/b.lua',
    );
  });
});

describe("ladder's scripts", () => {
  const luaDir = new URL('../../src/redis/lua/', import.meta.url);
  const sources = readdirSync(luaDir)
    .filter((f) => f.endsWith('.lua'))
    .map((f) => ({ file: f, text: readFileSync(new URL(f, luaDir), 'utf8') }));
  const loaded = scriptDefinitions();

  it('are loaded with every include resolved', () => {
    expect(Object.keys(loaded).sort()).toEqual(sources.map((s) => s.file.split('-')[0]).sort());
    for (const [name, { lua }] of Object.entries(loaded)) expect(lua, name).not.toMatch(/^---\s*@include/m);
  });

  it('raise a version only through includes/raiseVersion.lua, pasted once into each script that does', () => {
    const raising = sources.filter((s) => s.text.includes('includes/raiseVersion')).map((s) => s.file);
    expect(raising.sort()).toEqual([
      'applyStandings-5.lua',
      'boardEvent-1.lua',
      'setStandings-4.lua',
      'swapBoard-4.lua',
    ]);
    for (const { file, text } of sources) expect(text, file).not.toContain("redis.call('TIME')");
    for (const file of raising) {
      const lua = loaded[file.split('-')[0]!]!.lua;
      expect(lua.match(/local function raiseVersion\(/g), file).toHaveLength(1);
      expect(lua.match(/redis\.call\('TIME'\)/g), file).toHaveLength(1);
    }
  });

  it('compute a COMPETITION rank only through includes/competitionRank.lua', () => {
    for (const { file, text } of sources) expect(text, file).not.toMatch(/s % step/);
    const ranking = sources.filter((s) => s.text.includes('includes/competitionRank')).map((s) => s.file);
    expect(ranking.length).toBeGreaterThanOrEqual(8);
    for (const file of ranking) {
      expect(loaded[file.split('-')[0]!]!.lua.match(/local function competitionRank\(/g), file).toHaveLength(1);
    }
  });
});
