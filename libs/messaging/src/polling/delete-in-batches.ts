import type { DataSource } from 'typeorm';

/** Rows deleted per statement by retention. */
export const CLEANUP_BATCH = 5_000;
/** Statements per round, so retention never starves publishing. */
const CLEANUP_BATCHES_PER_ROUND = 20;

/**
 * Runs a `DELETE ... LIMIT $2` (with `$1` the retention in ms) until it deletes less than a
 * batch; true when it stopped at the per-round bound with more left.
 */
export async function deleteInBatches(
  dataSource: DataSource,
  sql: string,
  retentionMs: number,
): Promise<boolean> {
  for (let batch = 0; batch < CLEANUP_BATCHES_PER_ROUND; batch++) {
    const [, deleted]: [unknown, number] = await dataSource.query(sql, [
      retentionMs,
      CLEANUP_BATCH,
    ]);
    if (deleted < CLEANUP_BATCH) return false;
  }
  return true;
}
