import { Injectable } from '@nestjs/common';
import type { CloudEvent } from '@comanda/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import type { DeliveredMessage, MessageHeaders } from '../bus/message-bus';
import { TimerHandlerRegistry } from '../timers/timer-handler.registry';
import { TimerService } from '../timers/timer.service';
import type { FiredTimer, TimerPayload } from '../timers/timer.types';

/** Name of the durable timers that hold consumers' retries (docs/adr/0032). */
export const RETRY_TIMER = 'messaging.retry';

/** Key of the retry timer of `eventId` for `consumer` (its queue): one pending retry each. */
export function retryTimerKey(consumer: string, eventId: string): string {
  return `${consumer}/${eventId}`;
}

/** A retry as its timer keeps it, and as it is handed back when due. */
export interface DueRetry {
  /** The consumer's queue, `<service>.<consumer>`. */
  consumer: string;
  event: CloudEvent;
  headers: MessageHeaders;
  /** The attempt this retry is: 2 for the first retry. */
  attempt: number;
  /** Why the attempt before it failed. */
  lastError: string;
}

/** Runs a due retry in the transaction that marks its timer fired (and may re-arm it). */
export type RetryRunner = (
  retry: DueRetry,
  tx: EntityManager,
  timer: FiredTimer<TimerPayload>,
) => Promise<void>;

/**
 * Consumers' retries as durable timers in the service's own schema (`timers`, name
 * `messaging.retry`, key `<queue>/<event id>`): a failed message is kept here, the in-process
 * bus settles it at once, and the timer poller hands it back to the runner when it is due,
 * in a transaction that marks the timer fired. A process killed meanwhile loses nothing: the
 * timer fires after the next start.
 */
@Injectable()
export class DeferredRetries {
  private runner?: RetryRunner;

  constructor(
    private readonly dataSource: DataSource,
    private readonly timers: TimerService,
    private readonly registry: TimerHandlerRegistry,
  ) {}

  /**
   * Keeps `message` to be tried again as attempt `message.attempt + 1` in `delayMs` (by the
   * database's clock); replaces a retry of the same event pending for the consumer. Written
   * in `within` when given (a due retry re-arming itself), else in a transaction of its own.
   */
  async defer(
    consumer: string,
    message: Pick<DeliveredMessage, 'event' | 'headers' | 'attempt'>,
    delayMs: number,
    error: string,
    within?: EntityManager,
  ): Promise<void> {
    const retry: DueRetry = {
      consumer,
      event: message.event,
      headers: message.headers ?? {},
      attempt: message.attempt + 1,
      lastError: error.slice(0, 2_000),
    };
    const timer = {
      name: RETRY_TIMER,
      key: retryTimerKey(consumer, message.event.id),
      delayMs,
      payload: retry as unknown as TimerPayload,
    };
    if (within) return this.timers.schedule(within, timer);
    await this.dataSource.transaction((tx) => this.timers.schedule(tx, timer));
  }

  /**
   * Hands every due retry to `run` from now on (the consumers are listening). Until then the
   * timer poller leaves retries alone: they wait, durably, for their consumers.
   */
  serve(run: RetryRunner): void {
    const first = this.runner === undefined;
    this.runner = run;
    if (!first) return;
    this.registry.register(RETRY_TIMER, (payload, tx, timer) =>
      (this.runner as RetryRunner)(payload as unknown as DueRetry, tx, timer),
    );
  }
}
