// Prints the GraphQL schema, sorted, to schema/schema.graphql (`npm run codegen`, before the
// typed client is generated from it: codegen.ts).
// The printed schema is a reviewed artifact: test/graphql/schema.test.ts fails when it drifts.
import { writeFileSync } from 'node:fs';
import { printSortedSchema } from '../src/graphql/schema.js';

const target = new URL('../schema/schema.graphql', import.meta.url);
writeFileSync(target, printSortedSchema());
console.log(`wrote ${target.pathname}`);
