import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { previousSecretLabel, SecretBox, type SealedColumn } from '@comanda/security';
import type { Merchant } from '../domain/merchant';
import { table } from './payment.repository';

interface MerchantRow {
  id: string;
  tenant_id: string;
  name: string;
  partner_url: string;
  previous_secret_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A merchant locked for a save, with its secrets as stored (sealed). */
export interface LockedMerchant extends Merchant {
  secretSealed: string;
  /** The secret a save replaced, while the save's grace lasts or lasted (ADR 0070). */
  previous: { sealed: string; until: Date } | null;
}

/** The secret a save keeps valid beside the new one, in clear, and until when. */
export interface PreviousSecret {
  secret: string;
  until: Date;
}

/**
 * Where a merchant's signing secret lives: sealed under COMANDA_SECRETS_KEY, bound to its
 * merchant id (ADR 0033). `schema` is the service's schema.
 */
export function merchantSecretColumn(schema: string): SealedColumn {
  return {
    table: `"${schema}"."merchants"`,
    key: 'id',
    sealed: 'signing_secret_sealed',
    label: merchantSecretLabel,
  };
}

const COLUMNS = 'id, tenant_id, name, partner_url, previous_secret_until, created_at, updated_at';

@Injectable()
export class MerchantRepository {
  constructor(private readonly secrets: SecretBox) {}

  /**
   * By id alone: ids are global, and the caller checks the tenant. Locked for the
   * transaction, with its secrets as stored.
   */
  async lock(tx: Tx, id: string): Promise<LockedMerchant | undefined> {
    const rows: Array<
      MerchantRow & { signing_secret_sealed: string; previous_secret_sealed: string | null }
    > = await tx.query(
      `SELECT ${COLUMNS}, signing_secret_sealed, previous_secret_sealed
       FROM ${table(tx, 'merchants')} WHERE id = $1 FOR UPDATE`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      ...toMerchant(row),
      secretSealed: row.signing_secret_sealed,
      previous:
        row.previous_secret_sealed !== null && row.previous_secret_until !== null
          ? { sealed: row.previous_secret_sealed, until: row.previous_secret_until }
          : null,
    };
  }

  async find(tx: Tx, tenantId: string, id: string): Promise<Merchant | undefined> {
    const rows: MerchantRow[] = await tx.query(
      `SELECT ${COLUMNS} FROM ${table(tx, 'merchants')} WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId],
    );
    return rows[0] && toMerchant(rows[0]);
  }

  /**
   * Creates the merchant with its secret sealed (the column never holds it in clear), or
   * replaces the one of the same tenant; undefined when another tenant holds the id. A
   * concurrent writer of the same id waits here for the first one's commit, then replaces
   * its row (same tenant) or writes nothing (another tenant): what happened comes from the
   * statement, never from a read made before it.
   */
  async upsert(
    tx: Tx,
    merchant: Merchant,
    signingSecret: string,
    previous?: PreviousSecret,
  ): Promise<{ merchant: Merchant; created: boolean } | undefined> {
    const sealed = this.secrets.seal(signingSecret, merchantSecretLabel(merchant.id));
    const previousSealed = previous
      ? this.secrets.seal(previous.secret, merchantPreviousSecretLabel(merchant.id))
      : null;
    const rows: Array<MerchantRow & { created: boolean }> = await tx.query(
      `INSERT INTO ${table(tx, 'merchants')} (id, tenant_id, name, partner_url, signing_secret_sealed,
         previous_secret_sealed, previous_secret_until, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, partner_url = EXCLUDED.partner_url,
         signing_secret_sealed = EXCLUDED.signing_secret_sealed,
         previous_secret_sealed = EXCLUDED.previous_secret_sealed,
         previous_secret_until = EXCLUDED.previous_secret_until, updated_at = EXCLUDED.updated_at
       WHERE ${table(tx, 'merchants')}.tenant_id = EXCLUDED.tenant_id
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      [
        merchant.id,
        merchant.tenantId,
        merchant.name,
        merchant.partnerUrl,
        sealed,
        previousSealed,
        previous?.until ?? null,
        merchant.createdAt,
        merchant.updatedAt,
      ],
    );
    return rows[0] && { merchant: toMerchant(rows[0]), created: rows[0].created };
  }

  /** The merchant's secret in clear, from its sealed column value: only to sign with. */
  openSecret(merchantId: string, sealed: string): string {
    return this.secrets.open(sealed, merchantSecretLabel(merchantId));
  }

  /** The secret a save replaced, in clear, from `previous_secret_sealed`. */
  openPreviousSecret(merchantId: string, sealed: string): string {
    return this.secrets.open(sealed, merchantPreviousSecretLabel(merchantId));
  }
}

/** What a sealed secret is bound to: a value copied to another merchant's row does not open. */
function merchantSecretLabel(id: string): string {
  return `payments.merchants:${id}`;
}

/** The secret a save replaced, kept during its grace (ADR 0070). */
function merchantPreviousSecretLabel(id: string): string {
  return previousSecretLabel(merchantSecretLabel(id));
}

function toMerchant(row: MerchantRow): Merchant {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    partnerUrl: row.partner_url,
    previousSecretValidUntil: row.previous_secret_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
