import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { schemaOfTx } from './schema';

@Injectable()
export class OrderRefsRepository {
  /**
   * Ties each value to the order; answers the values another order of the tenant holds.
   * One insert with ON CONFLICT: a concurrent claim of the same value waits for the other
   * transaction and, once that commits, finds the value taken (no read-then-write). Values
   * are inserted in one order whatever the caller's: two reports sharing values wait on each
   * other in turn instead of each holding one the other needs (a deadlock, then a 500).
   */
  async claim(
    tx: Tx,
    tenantId: string,
    orderId: string,
    refs: Record<string, string>,
  ): Promise<string[]> {
    const byValue = new Map<string, string>();
    for (const [key, value] of Object.entries(refs))
      if (!byValue.has(value)) byValue.set(value, key);
    if (byValue.size === 0) return [];
    const values = [...byValue.keys()].sort();
    const keys = values.map((value) => byValue.get(value) as string);
    const claimed: Array<{ ref_value: string }> = await tx.query(
      `INSERT INTO ${schemaOfTx(tx)}.order_refs (tenant_id, ref_value, ref_key, order_id)
       SELECT $1, v.value, v.key, $2 FROM unnest($3::text[], $4::text[]) AS v(value, key)
       ON CONFLICT (tenant_id, ref_value) DO NOTHING
       RETURNING ref_value`,
      [tenantId, orderId, values, keys],
    );
    const ours = new Set(claimed.map((row) => row.ref_value));
    return values.filter((value) => !ours.has(value));
  }
}
