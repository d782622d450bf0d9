/** One operation of each type, and a document with two named ones (A a query, B a mutation). */
export const docs = {
  query: '{ seasons { id } }',
  mutation: 'mutation { closeSeason(id: 1, reason: "x") { id } }',
  subscription: 'subscription { recordUpdated(seasonId: 1) { playerId } }',
  two: 'query A { seasons { id } } mutation B { closeSeason(id: 1, reason: "x") { id } }',
};
