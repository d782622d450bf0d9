import SchemaBuilder from '@pothos/core';
import type { Context } from './context.js';

/** The Pothos builder. Types live in one file each; schema.ts imports them and builds. */
export const builder = new SchemaBuilder<{
  Context: Context;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSONObject: { Input: Record<string, unknown>; Output: unknown };
    ID: { Input: string; Output: string };
  };
}>({
  defaultFieldNullability: false,
});
