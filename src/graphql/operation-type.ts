import { Kind, type DocumentNode, type OperationTypeNode } from 'graphql';

/** The type of the operation a request runs (the named one, or the only one); undefined if none matches. */
export function operationTypeOf(document: DocumentNode, operationName?: string | null): OperationTypeNode | undefined {
  for (const d of document.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName)) return d.operation;
  }
  return undefined;
}

/** How many operations a document defines. */
export function operationCount(document: DocumentNode): number {
  return document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION).length;
}
