import { BREAK, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';

/**
 * Fields whose answer depends only on board state (and display names): the cacheable reads, and
 * the snapshot subscriptions one execution can serve to every client (shared-subscriptions.ts).
 * Entry.metadata is board state too: a standing's metadata changes only with the standing itself
 * (postgres/results-store.ts), so with its board's version. Entry.keys follow from the points and
 * the board's keys, which never change.
 */
const BOARD_STATE_FIELDS = new Set([
  'Query.leaderboard',
  'Subscription.topChanged',
  'Subscription.rankChanged',
  'Leaderboard.size',
  'Leaderboard.top',
  'Leaderboard.entry',
  'Leaderboard.around',
  'Leaderboard.friends',
  'Leaderboard.friendsPage',
  'Leaderboard.cutoff',
  'Leaderboard.window',
  'Leaderboard.periodStart',
  'Leaderboard.board',
  'Entry.rank',
  'Entry.playerId',
  'Entry.points',
  'Entry.achievedAt',
  'Entry.player',
  'Entry.percentile',
  'Entry.metadata',
  'Entry.keys',
  'FriendsPage.entries',
  'FriendsPage.endCursor',
  'FriendsPage.hasNextPage',
  'FriendsPage.ranked',
  'Cutoff.place',
  'Cutoff.points',
  'Cutoff.achievedAt',
  'Cutoff.entry',
  'Player.id',
  'Player.displayName',
]);

/** Is every operation of the document of this type, and every field it selects a board-state field? */
export function readsOnlyBoards(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: 'query' | 'subscription' = 'query',
): boolean {
  let ok = true;
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      OperationDefinition(node) {
        if (node.operation !== operation) {
          ok = false;
          return BREAK;
        }
        return undefined;
      },
      Field(node) {
        if (node.name.value === '__typename') return undefined;
        const parent = typeInfo.getParentType();
        if (!parent || !BOARD_STATE_FIELDS.has(`${parent.name}.${node.name.value}`)) {
          ok = false;
          return BREAK;
        }
        return undefined;
      },
    }),
  );
  return ok;
}
