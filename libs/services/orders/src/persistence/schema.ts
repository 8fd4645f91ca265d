import type { Tx } from '@comanda/persistence';

/** The quoted schema of the service's data source, for the few raw SQL statements. */
export function schemaOfTx(tx: Tx): string {
  const { schema } = tx.connection.options as { schema?: string };
  if (!schema) throw new Error('the orders data source has no schema');
  return `"${schema}"`;
}
