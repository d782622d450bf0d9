// Imports every type and builds the schema; opens no connection.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './entry.js';
import './season.js';
import './scopes.js';
import './leaderboard.js';
import './match-result.js';
import './player-admin.js';
import './reconcile.js';
import './audit-log.js';
import './subscriptions.js';
import './rewards.js';
import './leagues.js';

builder.queryType({});
builder.mutationType({});

/** The executable schema. */
export const schema: GraphQLSchema = builder.toSchema();

/** The schema as committed in schema/schema.graphql: printed, sorted. */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
