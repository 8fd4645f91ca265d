import type { Tx } from './unit-of-work';

/**
 * Waits until no other transaction holds the turn named `key` (with `subKey`, when given),
 * then holds it until this transaction ends: writers of one thing take turns, and each reads
 * what the one before it committed. A transaction-scoped advisory lock of PostgreSQL. One key
 * and two keys are separate lock spaces there (one bigint, two ints): a turn is always taken
 * with the same number of keys.
 */
export async function takeTurn(tx: Tx, key: string, subKey?: string): Promise<void> {
  if (subKey === undefined) {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
  } else {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [key, subKey]);
  }
}
