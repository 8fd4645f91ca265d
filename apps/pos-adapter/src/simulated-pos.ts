import { randomUUID } from 'node:crypto';
import type { AdapterConfig } from './config';
import type { PlacementOrder } from './comanda-client';

export type PosResult =
  | {
      ok: true;
      posOrderId: string;
      checkNumber: string;
      placedAt: Date;
      readyAt: Date;
      receipt: string;
    }
  | { ok: false; code: string; message: string };

/**
 * Stands in for the restaurant's POS: this is where a real adapter translates the order
 * with the `mappingDetails` of the store, items, charges and discounts into its POS's API.
 */
export class SimulatedPos {
  private checks = 0;

  constructor(private readonly settings: AdapterConfig['pos']) {}

  async send(order: PlacementOrder): Promise<PosResult> {
    await new Promise((resolve) => setTimeout(resolve, this.settings.delayMs));
    if (this.settings.outcome === 'failure') {
      return {
        ok: false,
        code: this.settings.failureCode,
        message: 'The simulated POS rejected the order.',
      };
    }
    const placedAt = new Date();
    const checkNumber = String(++this.checks).padStart(4, '0');
    const lines = order.items.map(
      (item) => `${item.quantity} x ${item.title} [${item.mappingDetails['plu'] ?? 'no plu'}]`,
    );
    return {
      ok: true,
      posOrderId: `sim-${randomUUID()}`,
      checkNumber,
      placedAt,
      readyAt: new Date(placedAt.getTime() + this.settings.prepMinutes * 60_000),
      receipt: [
        `SIMULATED POS - check ${checkNumber}`,
        ...lines,
        `placed ${placedAt.toISOString()}`,
      ].join('\n'),
    };
  }
}
