import { takeTurn } from '@comanda/persistence';
import type { EntityManager } from 'typeorm';

/**
 * Gives each new row of a list scope a creation time strictly later than every earlier
 * row of that scope, so that pages cut at a timestamp (`created_at_offset`, exclusive)
 * never drop or repeat rows that would otherwise share a millisecond. Writers of one
 * scope take turns on a transaction-scoped advisory lock; a burst runs the clock ahead
 * by at most one millisecond per row.
 */
export async function allocateCreatedAt(
  manager: EntityManager,
  scope: { lockKey: [string, string]; maxSql: string; parameters: unknown[] },
  now: Date,
): Promise<Date> {
  await takeTurn(manager, ...scope.lockKey);
  const [row] = (await manager.query(scope.maxSql, scope.parameters)) as Array<{
    latest: Date | null;
  }>;
  const latest = row?.latest ? new Date(row.latest).getTime() : Number.NEGATIVE_INFINITY;
  return new Date(Math.max(now.getTime(), latest + 1));
}
