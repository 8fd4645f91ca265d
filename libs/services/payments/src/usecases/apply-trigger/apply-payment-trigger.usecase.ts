import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { TimerService } from '@comanda/messaging';
import { databaseNow, type Tx } from '@comanda/persistence';
import type { OperationStatus, Payment } from '../../domain/payment';
import {
  decide,
  sentOperationsNeeded,
  triggerName,
  type Decision,
  type PaymentTrigger,
  type SagaPolicy,
} from '../../domain/payment-state-machine';
import { PaymentRepository } from '../../persistence/payment.repository';
import { PaymentsConfig, retryDelaysMs } from '../../payments.config';
import { PaymentTimers, type PaymentTimerPayload } from '../../timers/timer-names';
import { OperationRecorder } from './operation-recorder';
import { PaymentAnnouncer } from './payment-announcer';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_REASON = 500;
const NO_OPERATIONS: ReadonlySet<string> = new Set();

/**
 * An operation's deadline passed (its timer fired): whether the partner accepted it is read
 * under the payment's lock, and it becomes the `operation_timed_out` trigger.
 */
export interface OperationDeadline {
  kind: 'operation_deadline';
  operationId: string;
}

/** Where a trigger came from, recorded beside it on the payment. */
export interface TriggerOrigin {
  eventId?: string;
  occurredAt?: Date;
  /** The tenant the event came from: a payment of another tenant is not touched. */
  tenantId?: string;
  /** The merchant whose partner sent the event: it may only complete that merchant's payments. */
  merchantId?: string;
}

/**
 * The one way anything happens to a payment: lock it, let the transition table decide,
 * record the trigger (applied or ignored), then carry out the decision's effects (operations
 * to send, bus events, timers) in the same transaction.
 */
@Injectable()
export class ApplyPaymentTrigger {
  private readonly logger = new Logger(ApplyPaymentTrigger.name);
  private readonly policy: SagaPolicy;

  constructor(
    private readonly payments: PaymentRepository,
    private readonly operations: OperationRecorder,
    private readonly announcer: PaymentAnnouncer,
    private readonly timers: TimerService,
    config: PaymentsConfig,
  ) {
    this.policy = {
      reservationTtlMs: config.RESERVATION_TTL_MS,
      captureRetryDelaysMs: retryDelaysMs(config.CAPTURE_RETRY_DELAYS_MS),
      annulmentRetryDelaysMs: retryDelaysMs(config.ANNULMENT_RETRY_DELAYS_MS),
    };
  }

  async execute(
    tx: Tx,
    paymentId: string,
    input: PaymentTrigger | OperationDeadline,
    origin: TriggerOrigin = {},
    at?: Date,
  ): Promise<Decision | undefined> {
    // Deadlines are fired by the database's clock: decide by it too (tests may pass a time).
    const now = at ?? (await databaseNow(tx));
    // Partner events name payments as the partner sent them: anything but our UUIDs is unknown.
    const payment = UUID.test(paymentId) ? await this.payments.lock(tx, paymentId) : undefined;
    const foreign =
      payment &&
      ((origin.tenantId !== undefined && origin.tenantId !== payment.tenantId) ||
        (origin.merchantId !== undefined && origin.merchantId !== payment.merchantId));
    if (!payment || foreign) {
      this.logger.warn(`${input.kind} for unknown payment ${paymentId} ignored`);
      return undefined;
    }
    let trigger: PaymentTrigger;
    if (input.kind === 'operation_deadline') {
      // Locked after the payment, as finishing an operation does: a 2xx the sender records
      // at this instant is either seen here or comes too late to count.
      const operation = await this.payments.lockOperation(tx, input.operationId);
      if (!operation) {
        this.logger.warn(`deadline of unknown operation ${input.operationId} ignored`);
        return undefined;
      }
      trigger = {
        kind: 'operation_timed_out',
        operationId: input.operationId,
        operationType: operation.type,
        accepted: operation.accepted,
      };
    } else {
      trigger = input;
    }
    const decision = decide(
      payment.saga,
      trigger,
      now,
      this.policy,
      randomUUID,
      await this.operationsSent(tx, payment, trigger),
    );
    const updated: Payment = { ...payment, saga: decision.saga, updatedAt: now };
    if (decision.applied) {
      await this.finishOperation(tx, trigger, now);
      await this.supersedeDropped(tx, payment, decision, trigger, now);
      await this.payments.save(tx, updated);
      await this.carryOut(tx, updated, decision, now);
    }
    await this.payments.record(
      tx,
      payment.id,
      {
        trigger: triggerName(trigger),
        eventId: origin.eventId ?? null,
        operationId: 'operationId' in trigger ? trigger.operationId : null,
        reason: 'reason' in trigger && trigger.reason ? trigger.reason.slice(0, MAX_REASON) : null,
        applied: decision.applied,
        note: decision.note,
        stateBefore: payment.saga.state,
        stateAfter: decision.saga.state,
        occurredAt: origin.occurredAt ?? null,
      },
      now,
    );
    return decision;
  }

  /**
   * The operations of one type sent for the payment, read only when the trigger may be a late
   * success of one of them (ADR 0050, 0052).
   */
  private async operationsSent(
    tx: Tx,
    payment: Payment,
    trigger: PaymentTrigger,
  ): Promise<ReadonlySet<string>> {
    const type = sentOperationsNeeded(payment.saga, trigger);
    if (type === undefined) return NO_OPERATIONS;
    const operations = await this.payments.operationsOf(tx, payment.id);
    return new Set(
      operations.filter((operation) => operation.type === type).map((operation) => operation.id),
    );
  }

  /**
   * The operation the payment waited for, when a late success of another one ended the wait
   * (ADR 0050, 0052): it is not sent any more, and its deadline has nothing left to decide.
   */
  private async supersedeDropped(
    tx: Tx,
    payment: Payment,
    decision: Decision,
    trigger: PaymentTrigger,
    now: Date,
  ): Promise<void> {
    const dropped = payment.saga.pending;
    if (!dropped || decision.saga.pending?.id === dropped.id) return;
    if ('operationId' in trigger && trigger.operationId === dropped.id) return;
    await this.endOperation(tx, dropped.id, 'superseded', now);
  }

  private async finishOperation(tx: Tx, trigger: PaymentTrigger, now: Date): Promise<void> {
    if (!('operationId' in trigger)) return;
    let status: Exclude<OperationStatus, 'sending' | 'accepted'>;
    if (trigger.kind === 'operation_rejected') status = 'rejected';
    else if (trigger.kind === 'operation_timed_out') status = 'timed_out';
    else status = trigger.type.endsWith('_succeeded') ? 'succeeded' : 'failed';
    await this.endOperation(tx, trigger.operationId, status, now);
  }

  /** Records an operation's end; its deadline timer goes too, unless that timer is what fired. */
  private async endOperation(
    tx: Tx,
    operationId: string,
    status: Exclude<OperationStatus, 'sending' | 'accepted'>,
    now: Date,
  ): Promise<void> {
    await this.payments.finishOperation(tx, operationId, status, now);
    if (status !== 'timed_out') {
      await this.timers.cancel(tx, PaymentTimers.OperationTimeout, operationId);
    }
  }

  private async carryOut(tx: Tx, payment: Payment, decision: Decision, now: Date): Promise<void> {
    const key = payment.id;
    for (const effect of decision.effects) {
      switch (effect.kind) {
        case 'send':
          await this.operations.record(tx, payment, effect.operationId, effect.operationType, now);
          break;
        case 'announce':
          await this.announcer.announce(tx, payment, effect.event);
          break;
        case 'schedule_capture_retry':
          await this.timers.schedule<PaymentTimerPayload>(tx, {
            name: PaymentTimers.CaptureRetry,
            key,
            fireAt: effect.at,
            payload: { paymentId: payment.id },
          });
          break;
        case 'cancel_capture_retry':
          await this.timers.cancel(tx, PaymentTimers.CaptureRetry, key);
          break;
        case 'schedule_annulment_retry':
          await this.timers.schedule<PaymentTimerPayload>(tx, {
            name: PaymentTimers.AnnulmentRetry,
            key,
            fireAt: effect.at,
            payload: { paymentId: payment.id },
          });
          break;
        case 'cancel_annulment_retry':
          await this.timers.cancel(tx, PaymentTimers.AnnulmentRetry, key);
          break;
        case 'schedule_reservation_expiry':
          await this.timers.schedule<PaymentTimerPayload>(tx, {
            name: PaymentTimers.ReservationExpiry,
            key,
            fireAt: effect.at,
            payload: { paymentId: payment.id },
          });
          break;
      }
    }
  }
}
