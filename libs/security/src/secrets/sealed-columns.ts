import type { SecretBox } from './secret-box';

/** Anything that runs SQL: a TypeORM transaction (`Tx`) or a migration's query runner. */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** A column of sealed secrets: one per row, sealed with the row's label. */
export interface SealedColumn {
  /** Quoted and qualified, e.g. `"payments"."merchants"` (from code, never from input). */
  table: string;
  /** The row's key column; its value is what `label` binds a sealed value to. */
  key: string;
  /** The column that holds sealed values. */
  sealed: string;
  label(key: string): string;
}

/**
 * For the migration that starts sealing a column kept in clear: adds `sealed`, seals every
 * row's `plaintext` into it, and drops `plaintext`, in the migration's transaction.
 */
export async function sealPlaintextColumn(
  sql: SqlRunner,
  box: SecretBox,
  column: SealedColumn & { plaintext: string },
): Promise<number> {
  const { table, key, sealed, plaintext } = column;
  await sql.query(`ALTER TABLE ${table} ADD COLUMN ${sealed} text`);
  const rows = (await sql.query(
    `SELECT ${key} AS key, ${plaintext} AS value FROM ${table} FOR UPDATE`,
  )) as Array<{ key: string; value: string }>;
  for (const row of rows) {
    await sql.query(`UPDATE ${table} SET ${sealed} = $2 WHERE ${key} = $1`, [
      row.key,
      box.seal(row.value, column.label(row.key)),
    ]);
  }
  await sql.query(`ALTER TABLE ${table} ALTER COLUMN ${sealed} SET NOT NULL`);
  await sql.query(`ALTER TABLE ${table} DROP COLUMN ${plaintext}`);
  return rows.length;
}

/** The reverse of {@link sealPlaintextColumn}, for a migration's `down`. */
export async function unsealColumn(
  sql: SqlRunner,
  box: SecretBox,
  column: SealedColumn & { plaintext: string },
): Promise<void> {
  const { table, key, sealed, plaintext } = column;
  await sql.query(`ALTER TABLE ${table} ADD COLUMN ${plaintext} text`);
  const rows = (await sql.query(
    `SELECT ${key} AS key, ${sealed} AS value FROM ${table} FOR UPDATE`,
  )) as Array<{ key: string; value: string }>;
  for (const row of rows) {
    await sql.query(`UPDATE ${table} SET ${plaintext} = $2 WHERE ${key} = $1`, [
      row.key,
      box.open(row.value, column.label(row.key)),
    ]);
  }
  await sql.query(`ALTER TABLE ${table} ALTER COLUMN ${plaintext} SET NOT NULL`);
  await sql.query(`ALTER TABLE ${table} DROP COLUMN ${sealed}`);
}

/**
 * After a key change (`COMANDA_PREVIOUS_SECRETS_KEY` set), seals every value that opens only
 * with the previous key again with the current one, so the previous key stops mattering.
 * Runs in the caller's transaction; replicas starting together take turns on a lock.
 * A value that opens with neither key fails the start: the service cannot sign with it.
 */
export async function resealColumn(
  tx: SqlRunner,
  box: SecretBox,
  column: SealedColumn,
): Promise<number> {
  const { table, key, sealed } = column;
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`comanda:reseal:${table}`]);
  // A column that may be empty (a previous secret, kept only during a rollover) holds NULL.
  const rows = (await tx.query(
    `SELECT ${key} AS key, ${sealed} AS value FROM ${table} WHERE ${sealed} IS NOT NULL FOR UPDATE`,
  )) as Array<{ key: string; value: string }>;
  let count = 0;
  for (const row of rows) {
    const label = column.label(row.key);
    if (!box.needsResealing(row.value, label)) continue;
    const secret = box.open(row.value, label);
    await tx.query(`UPDATE ${table} SET ${sealed} = $2 WHERE ${key} = $1`, [
      row.key,
      box.seal(secret, label),
    ]);
    count += 1;
  }
  return count;
}

/**
 * The label of the secret a rollover replaced (ADR 0070), kept beside the one sealed under
 * `label`: a value moved between the two columns does not open.
 */
export function previousSecretLabel(label: string): string {
  return `${label}:previous`;
}

/** Where a table keeps the secret a rollover replaced, beside `column` (same table and key). */
export function previousSecretColumn(column: SealedColumn): SealedColumn {
  return {
    ...column,
    sealed: 'previous_secret_sealed',
    label: (key) => previousSecretLabel(column.label(key)),
  };
}

/**
 * For the migration that lets a table keep a secret for a while (the secret a rollover
 * replaced, ADR 0070): `previous_secret_sealed` and `previous_secret_until`, both NULL or
 * both set. `table` is quoted and qualified; `dropPreviousSecretColumns` undoes it.
 */
export async function addPreviousSecretColumns(sql: SqlRunner, table: string): Promise<void> {
  await sql.query(`
    ALTER TABLE ${table}
      ADD COLUMN previous_secret_sealed text,
      ADD COLUMN previous_secret_until timestamptz,
      ADD CONSTRAINT previous_secret_whole
        CHECK ((previous_secret_sealed IS NULL) = (previous_secret_until IS NULL))`);
}

export async function dropPreviousSecretColumns(sql: SqlRunner, table: string): Promise<void> {
  await sql.query(`
    ALTER TABLE ${table}
      DROP CONSTRAINT previous_secret_whole,
      DROP COLUMN previous_secret_sealed,
      DROP COLUMN previous_secret_until`);
}
