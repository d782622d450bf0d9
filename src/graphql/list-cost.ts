import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  valueFromASTUntyped,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LIMITS, READ_DEFAULTS } from '../domain/board.js';
import { MAX_KEYS } from '../domain/board-keys.js';
import { RANK_HISTORY_MAX } from '../domain/rank-history.js';
import { MAX_BOARDS } from '../service/seasons.js';

/** Items assumed for a list whose size no argument bounds (seasons, report samples). */
export const UNBOUNDED_LIST_SIZE = 20;

type Arg = (name: string) => unknown;

/** An integer argument clamped to its bounds; a value that is no integer counts as the maximum. */
function sizeOf(value: unknown, byDefault: number, max: number): number {
  if (value === undefined || value === null) return byDefault;
  return typeof value === 'number' && Number.isInteger(value) ? Math.min(Math.max(value, 0), max) : max;
}

/** How many items a list field (or a page of one) returns at most, from its arguments (defaults as in the schema). */
const LIST_SIZES: Record<string, (arg: Arg) => number> = {
  'Leaderboard.top': (arg) => sizeOf(arg('limit'), 100, LIMITS.topLimit),
  'Leaderboard.around': (arg) => 2 * sizeOf(arg('radius'), 5, LIMITS.aroundRadius) + 1,
  'Leaderboard.friends': (arg) => {
    const ids = arg('playerIds');
    return Array.isArray(ids) ? Math.min(ids.length, LIMITS.friends) : LIMITS.friends;
  },
  'Leaderboard.friendsPage': (arg) => {
    const ids = arg('playerIds');
    const first = sizeOf(arg('first'), READ_DEFAULTS.friendsFirst, LIMITS.friends);
    return Array.isArray(ids) ? Math.min(ids.length, first) : first;
  },
  // friendsPage above counts the page once per entry it can hold.
  'FriendsPage.entries': () => 1,
  'Subscription.topChanged': (arg) => sizeOf(arg('limit'), 10, LIMITS.topChangedLimit),
  'Entry.rankHistory': (arg) => sizeOf(arg('last'), 30, RANK_HISTORY_MAX),
  'Season.periods': (arg) => sizeOf(arg('first'), READ_DEFAULTS.periodsFirst, LIMITS.periods),
  'Season.boards': () => MAX_BOARDS,
  'Board.keys': () => MAX_KEYS,
};

/**
 * What an operation can make the server produce: every field selected costs 1, and the selection
 * under a list counts once per item the list can hold (`top(limit: 1000) { rank }` costs 1,001).
 * Variables and their defaults count with their values. Introspection is free (its answer is
 * bounded by the schema).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variableValues?: Record<string, unknown> | null,
): number {
  return measure(schema, document, operationName, variableValues).cost;
}

const usesVariable = (node: ValueNode): boolean =>
  node.kind === Kind.VARIABLE ||
  (node.kind === Kind.LIST && node.values.some(usesVariable)) ||
  (node.kind === Kind.OBJECT && node.fields.some((f) => usesVariable(f.value)));

/** operationCost, and whether a variable's value went into it. */
function measure(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variableValues?: Record<string, unknown> | null,
): { cost: number; variable: boolean } {
  let variable = false;
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!operation) return { cost: 0, variable };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const variables: Record<string, unknown> = {};
  for (const v of operation.variableDefinitions ?? []) {
    if (v.defaultValue) variables[v.variable.name.value] = valueFromASTUntyped(v.defaultValue);
  }
  Object.assign(variables, variableValues ?? {});

  const fragmentCosts = new Map<string, number>();
  const selectionCost = (typeName: string, set: SelectionSetNode, seen: Set<string>): number => {
    let cost = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        cost += selectionCost(sel.typeCondition?.name.value ?? typeName, sel.selectionSet, seen);
      } else if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(sel.name.value);
        // A fragment spread twice on one path is a cycle (refused by validation); count it once.
        if (!fragment || seen.has(fragment.name.value)) continue;
        // Memoised: fragments spreading fragments ten times each, eight deep, would otherwise
        // take 10^8 steps to count (execution merges such spreads; the count does not).
        let fragmentCost = fragmentCosts.get(fragment.name.value);
        if (fragmentCost === undefined) {
          fragmentCost = selectionCost(
            fragment.typeCondition.name.value,
            fragment.selectionSet,
            new Set(seen).add(fragment.name.value),
          );
          fragmentCosts.set(fragment.name.value, fragmentCost);
        }
        cost += fragmentCost;
      } else {
        if (sel.name.value.startsWith('__')) continue;
        const type = schema.getType(typeName);
        const field: GraphQLField<unknown, unknown> | undefined =
          isObjectType(type) || isInterfaceType(type) ? type.getFields()[sel.name.value] : undefined;
        cost += 1;
        if (!field || !sel.selectionSet) continue;
        const arg: Arg = (name) => {
          const node = sel.arguments?.find((a) => a.name.value === name);
          if (node && usesVariable(node.value)) variable = true;
          return node ? valueFromASTUntyped(node.value, variables) : undefined;
        };
        const listType = getNullableType(field.type);
        const items =
          LIST_SIZES[`${typeName}.${field.name}`]?.(arg) ?? (isListType(listType) ? UNBOUNDED_LIST_SIZE : 1);
        cost += items * selectionCost(getNamedType(field.type).name, sel.selectionSet, seen);
      }
    }
    return cost;
  };
  const root = schema.getRootType(operation.operation);
  const cost = root ? selectionCost(root.name, operation.selectionSet, new Set()) : 0;
  return { cost, variable };
}

/** What the cost of an operation depends on. */
export interface CostArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
}

/**
 * Refuses (BAD_USER_INPUT) an operation whose operationCost is over `maxCost`, before it runs.
 * `over` answers the same question for the paths that run prepared operations without an
 * envelop per request (read-path.ts, board-subscriptions.ts): they hand such an operation to yoga.
 */
export function listCostLimit(maxCost: number): Plugin & { over(args: CostArgs): boolean } {
  const refusal = (cost: number) => ({
    errors: [
      new GraphQLError(
        `query cost ${cost} is over the limit of ${maxCost}: ask for fewer items (limit, radius, playerIds) or fewer aliases`,
        {
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ),
    ],
  });
  // Documents come from yoga's parse cache: a cost that no variable changes is measured once.
  const fixed = new WeakMap<DocumentNode, Map<string, number>>();
  const costOf = (args: CostArgs) => {
    const known = fixed.get(args.document)?.get(args.operationName ?? '');
    if (known !== undefined) return known;
    const { cost, variable } = measure(args.schema, args.document, args.operationName, args.variableValues);
    if (!variable) {
      const byName = fixed.get(args.document) ?? new Map<string, number>();
      fixed.set(args.document, byName.set(args.operationName ?? '', cost));
    }
    return cost;
  };
  return {
    over: (args) => costOf(args) > maxCost,
    onExecute: ({ args, setResultAndStopExecution }) => {
      const cost = costOf(args);
      if (cost > maxCost) setResultAndStopExecution(refusal(cost));
    },
    onSubscribe: ({ args, setResultAndStopExecution }) => {
      const cost = costOf(args);
      if (cost > maxCost) setResultAndStopExecution(refusal(cost));
    },
  };
}
