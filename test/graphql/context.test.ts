import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// A context is made per request. Made with a getter (`get players() {...}` in the literal), each
// one was a dictionary-mode object, and V8 kept those and all they reach alive through
// young-generation GCs: ~0.9 MB kept per scavenge on the entry path, pauses 2-3x longer
// (docs/benchmarks-history.md). V8's %HasFastProperties tells it directly; it needs
// --allow-natives-syntax, so the check runs in a node of its own.
const script = `
import { createContextFactory } from './src/graphql/context.ts';
const contextFor = createContextFactory({ playerNames: async (ids) => new Map(ids.map((id) => [id, 'n' + id])) }, async () => null);
const req = (a) => ({ headers: {}, socket: { remoteAddress: a } });
const [a, b] = [contextFor(req('10.0.0.1')), contextFor(req('10.0.0.2'))];
const names = await Promise.all([a.players.load('7'), a.players.load('8'), b.players.load('9')]);
console.log(JSON.stringify({ fast: %HasFastProperties(a) && %HasFastProperties(b), names, addresses: [a.clientAddress, b.clientAddress], principal: await a.principal() }));
`;

describe('request context', () => {
  it('is a fast-properties object (no getter) and still loads names and the principal lazily', () => {
    const out = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(out)).toEqual({
      fast: true,
      names: [
        { id: '7', displayName: 'n7' },
        { id: '8', displayName: 'n8' },
        { id: '9', displayName: 'n9' },
      ],
      addresses: ['10.0.0.1', '10.0.0.2'],
      principal: null,
    });
  });
});
