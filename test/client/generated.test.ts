// The typed client's generated code (src/client/generated.ts) must be what GraphQL Code Generator
// makes of codegen.ts today: generated again, in memory, it must equal the committed file. It
// drifts when the schema (schema/schema.graphql, itself checked against the code by
// test/graphql/schema.test.ts) or an operation in client/operations/ changes without `npm run codegen`.
import { readFileSync } from 'node:fs';
import { generate } from '@graphql-codegen/cli';
import { expect, it } from 'vitest';
import config from '../../codegen.js';

it('src/client/generated.ts is up to date (run `npm run codegen`)', async () => {
  const outputs = await generate({ ...config, cwd: process.cwd() }, false);
  expect(outputs.map((o: { filename: string }) => o.filename)).toEqual(['src/client/generated.ts']);
  expect(outputs[0]!.content).toBe(readFileSync('src/client/generated.ts', 'utf8'));
});

it('fails on drift: an operation the schema does not have is refused', async () => {
  const documents = ['query Broken { leaderboard(seasonId: 1) { noSuchField } }'];
  await expect(generate({ ...config, documents, cwd: process.cwd() }, false)).rejects.toThrow(/noSuchField/);
});
