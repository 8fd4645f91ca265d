import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import type { Merchant } from '../domain/merchant';
import { table } from './payment.repository';

interface MerchantRow {
  id: string;
  tenant_id: string;
  name: string;
  partner_url: string;
  signing_secret: string;
  created_at: Date;
  updated_at: Date;
}

@Injectable()
export class MerchantRepository {
  /** By id alone: ids are global, and the caller checks the tenant. Locked for the transaction. */
  async lock(tx: Tx, id: string): Promise<Merchant | undefined> {
    const rows: MerchantRow[] = await tx.query(
      `SELECT * FROM ${table(tx, 'merchants')} WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] && toMerchant(rows[0]);
  }

  async find(tx: Tx, tenantId: string, id: string): Promise<Merchant | undefined> {
    const rows: MerchantRow[] = await tx.query(
      `SELECT * FROM ${table(tx, 'merchants')} WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId],
    );
    return rows[0] && toMerchant(rows[0]);
  }

  /**
   * Creates the merchant, or replaces the one of the same tenant; undefined when another
   * tenant holds the id. A concurrent writer of the same id waits here for the first one's
   * commit, then replaces its row (same tenant) or writes nothing (another tenant): what
   * happened comes from the statement, never from a read made before it.
   */
  async upsert(
    tx: Tx,
    merchant: Merchant,
  ): Promise<{ merchant: Merchant; created: boolean } | undefined> {
    const rows: Array<MerchantRow & { created: boolean }> = await tx.query(
      `INSERT INTO ${table(tx, 'merchants')} (id, tenant_id, name, partner_url, signing_secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, partner_url = EXCLUDED.partner_url,
         signing_secret = EXCLUDED.signing_secret, updated_at = EXCLUDED.updated_at
       WHERE ${table(tx, 'merchants')}.tenant_id = EXCLUDED.tenant_id
       RETURNING *, (xmax = 0) AS created`,
      [
        merchant.id,
        merchant.tenantId,
        merchant.name,
        merchant.partnerUrl,
        merchant.signingSecret,
        merchant.createdAt,
        merchant.updatedAt,
      ],
    );
    return rows[0] && { merchant: toMerchant(rows[0]), created: rows[0].created };
  }
}

function toMerchant(row: MerchantRow): Merchant {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    partnerUrl: row.partner_url,
    signingSecret: row.signing_secret,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
