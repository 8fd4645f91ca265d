import { Injectable } from '@nestjs/common';
import { deferWrite, type Tx } from '@comanda/persistence';
import { schemaOfTx } from './schema';

export interface CheckoutAnswer {
  orderId: string;
  status: string;
}

/** Idempotency-Key of checkouts, per tenant: the first answer, replayed to every repeat. */
@Injectable()
export class CheckoutKeysRepository {
  /**
   * Claims the key for the basket, or answers who holds it: a concurrent claim waits for
   * the holder's transaction and then reads its committed answer.
   */
  async claim(
    tx: Tx,
    tenantId: string,
    key: string,
    basketId: string,
  ): Promise<
    { claimed: true } | { claimed: false; basketId: string; answer: CheckoutAnswer | null }
  > {
    const table = `${schemaOfTx(tx)}.checkout_keys`;
    const inserted: unknown[] = await tx.query(
      `INSERT INTO ${table} (tenant_id, idempotency_key, basket_id) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING basket_id`,
      [tenantId, key, basketId],
    );
    if (inserted.length > 0) return { claimed: true };
    const rows: Array<{ basket_id: string; response: CheckoutAnswer | null }> = await tx.query(
      `SELECT basket_id, response FROM ${table} WHERE tenant_id = $1 AND idempotency_key = $2`,
      [tenantId, key],
    );
    return { claimed: false, basketId: rows[0].basket_id, answer: rows[0].response };
  }

  /** Sent with the checkout's COMMIT (ADR 0067): the claimed row is the transaction's own. */
  async remember(tx: Tx, tenantId: string, key: string, answer: CheckoutAnswer): Promise<void> {
    await deferWrite(
      tx,
      `UPDATE ${schemaOfTx(tx)}.checkout_keys SET response = $3
       WHERE tenant_id = $1 AND idempotency_key = $2`,
      [tenantId, key, JSON.stringify(answer)],
    );
  }
}
