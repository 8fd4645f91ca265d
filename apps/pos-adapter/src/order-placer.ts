import { createHash } from 'node:crypto';
import { ComandaApiError, type ComandaClient } from './comanda-client';
import type { SimulatedPos } from './simulated-pos';

/** The part of the CloudEvent the adapter reads (same shape from RabbitMQ and webhooks). */
export interface ReadyEvent {
  id: string;
  type: string;
  tenantid: string;
  data: { orderId: string; storeId: string; requestedReadyTime?: string };
}

export const READY_EVENT_TYPE = 'order.ready_to_be_placed_in_pos';

export type PlacementOutcome = 'placed' | 'failed' | 'skipped';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * One event, one placement: start the session (which returns the whole order), send the
 * order to the POS, report the outcome. The session id is derived from the event id, so a
 * redelivered event resumes the same session instead of starting another.
 */
export class OrderPlacer {
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly comanda: ComandaClient,
    private readonly pos: SimulatedPos,
    private readonly log: Logger,
  ) {}

  async handle(event: ReadyEvent): Promise<PlacementOutcome> {
    if (event.type !== READY_EVENT_TYPE) return 'skipped';
    const { orderId } = event.data;
    // The same event may arrive over RabbitMQ and a webhook at once: place it once.
    if (this.inFlight.has(orderId)) return 'skipped';
    this.inFlight.add(orderId);
    try {
      return await this.place(orderId, sessionIdFor(event.id));
    } finally {
      this.inFlight.delete(orderId);
    }
  }

  private async place(orderId: string, sessionId: string): Promise<PlacementOutcome> {
    let order;
    try {
      order = await this.comanda.startSession(orderId, sessionId);
    } catch (error) {
      // 409: not placeable (waiting for payment, failed); 404: not this tenant's order.
      if (error instanceof ComandaApiError && (error.status === 409 || error.status === 404)) {
        this.log.warn(`order ${orderId} not placed: ${error.message}`);
        return 'skipped';
      }
      throw error;
    }
    const result = await this.pos.send(order);
    try {
      if (result.ok) {
        await this.comanda.reportPlaced(orderId, {
          orderName: `Check ${result.checkNumber}`,
          datePlaced: result.placedAt.toISOString(),
          estimatedReadyTime: result.readyAt.toISOString(),
          orderRefsDict: { posOrderId: result.posOrderId },
          receipt: result.receipt,
        });
        this.log.info(`order ${orderId} placed as ${result.posOrderId}`);
        return 'placed';
      }
      await this.comanda.reportFailed(orderId, { code: result.code, message: result.message });
      this.log.info(`order ${orderId} reported failed: ${result.code}`);
      return 'failed';
    } catch (error) {
      // 405: finalized already (the placement timeout ran out, or another report won).
      if (error instanceof ComandaApiError && error.status === 405) {
        this.log.warn(`order ${orderId} was already finalized: ${error.message}`);
        return 'skipped';
      }
      throw error;
    }
  }
}

/** A UUID (version 5 layout) derived from the event id. */
export function sessionIdFor(eventId: string): string {
  const hash = createHash('sha1').update(`comanda-pos-session:${eventId}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
