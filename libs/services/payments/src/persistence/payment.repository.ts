import { Injectable } from '@nestjs/common';
import type { PaymentOperationType } from '@comanda/contracts';
import { isUuid, schemaOf, type Tx } from '@comanda/persistence';
import {
  LISTED_IGNORED_EVENTS,
  type OperationStatus,
  type Payment,
  type PaymentEventRecord,
  type PaymentOperation,
} from '../domain/payment';
import type { PaymentState } from '../domain/payment-state-machine';

interface PaymentRow {
  id: string;
  tenant_id: string;
  order_id: string;
  merchant_id: string;
  payment_method: string;
  amount_value: string;
  currency: string;
  state: PaymentState;
  pending_operation_id: string | null;
  pending_operation_type: PaymentOperationType | null;
  failure_reason: string | null;
  reservation_expires_at: Date | null;
  capture_failures: number;
  last_annulment_id: string | null;
  annulment_failures: number;
  created_at: Date;
  updated_at: Date;
}

interface OperationRow {
  id: string;
  payment_id: string;
  type: PaymentOperationType;
  status: OperationStatus;
  send_attempts: number;
  last_error: string | null;
  created_at: Date;
  accepted_at: Date | null;
  completed_at: Date | null;
  deadline_at: Date;
}

interface EventRow {
  trigger: string;
  event_id: string | null;
  operation_id: string | null;
  reason: string | null;
  applied: boolean;
  note: string;
  state_before: PaymentState;
  state_after: PaymentState;
  occurred_at: Date | null;
  recorded_at: Date;
  repeats: number;
  last_recorded_at: Date | null;
}

export interface NewOperation {
  id: string;
  paymentId: string;
  tenantId: string;
  merchantId: string;
  type: PaymentOperationType;
  body: string;
  deadlineAt: Date;
}

/** Payments, their operations and their recorded events, in the caller's transaction. */
@Injectable()
export class PaymentRepository {
  async insert(tx: Tx, payment: Payment): Promise<void> {
    await tx.query(
      `INSERT INTO ${table(tx, 'payments')} (id, tenant_id, order_id, merchant_id, payment_method,
         amount_value, currency, state, pending_operation_id, pending_operation_type, failure_reason,
         reservation_expires_at, capture_failures, last_annulment_id, annulment_failures,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)`,
      [
        payment.id,
        payment.tenantId,
        payment.orderId,
        payment.merchantId,
        payment.paymentMethod,
        payment.amount.value,
        payment.amount.currency,
        payment.saga.state,
        payment.saga.pending?.id ?? null,
        payment.saga.pending?.type ?? null,
        payment.saga.failureReason,
        payment.saga.reservationExpiresAt,
        payment.saga.captureFailures,
        payment.saga.lastAnnulmentId,
        payment.saga.annulmentFailures,
        payment.createdAt,
      ],
    );
  }

  /** The payment, locked until the transaction ends: its triggers apply one at a time. */
  async lock(tx: Tx, id: string): Promise<Payment | undefined> {
    // An id that is no UUID names no payment (a partner's event, a hand-edited timer).
    if (!isUuid(id)) return undefined;
    const rows: PaymentRow[] = await tx.query(
      `SELECT * FROM ${table(tx, 'payments')} WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] && toPayment(rows[0]);
  }

  async find(tx: Tx, tenantId: string, id: string): Promise<Payment | undefined> {
    // A path id that is no UUID names no payment (404, as for orders), never a uuid column.
    if (!isUuid(id)) return undefined;
    const rows: PaymentRow[] = await tx.query(
      `SELECT * FROM ${table(tx, 'payments')} WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId],
    );
    return rows[0] && toPayment(rows[0]);
  }

  async existsForOrder(tx: Tx, tenantId: string, orderId: string): Promise<boolean> {
    const rows: unknown[] = await tx.query(
      `SELECT 1 FROM ${table(tx, 'payments')} WHERE tenant_id = $1 AND order_id = $2`,
      [tenantId, orderId],
    );
    return rows.length > 0;
  }

  async save(tx: Tx, payment: Payment): Promise<void> {
    const { saga } = payment;
    await tx.query(
      `UPDATE ${table(tx, 'payments')} SET state = $2, pending_operation_id = $3,
         pending_operation_type = $4, failure_reason = $5, reservation_expires_at = $6,
         capture_failures = $7, last_annulment_id = $8, annulment_failures = $9, updated_at = $10
       WHERE id = $1`,
      [
        payment.id,
        saga.state,
        saga.pending?.id ?? null,
        saga.pending?.type ?? null,
        saga.failureReason,
        saga.reservationExpiresAt,
        saga.captureFailures,
        saga.lastAnnulmentId,
        saga.annulmentFailures,
        payment.updatedAt,
      ],
    );
  }

  async addOperation(tx: Tx, operation: NewOperation, now: Date): Promise<void> {
    await tx.query(
      `INSERT INTO ${table(tx, 'payment_operations')} (id, payment_id, tenant_id, merchant_id, type,
         status, body, deadline_at, next_send_at, created_at)
       VALUES ($1, $2, $3, $4, $5, 'sending', $6, $7, $8, $8)`,
      [
        operation.id,
        operation.paymentId,
        operation.tenantId,
        operation.merchantId,
        operation.type,
        operation.body,
        operation.deadlineAt,
        now,
      ],
    );
  }

  /** The operation's type and whether the partner accepted it (answered 2xx), its row locked. */
  async lockOperation(
    tx: Tx,
    id: string,
  ): Promise<{ type: PaymentOperationType; accepted: boolean } | undefined> {
    const rows: Array<{ type: PaymentOperationType; accepted: boolean }> = await tx.query(
      `SELECT type, accepted_at IS NOT NULL AS accepted FROM ${table(tx, 'payment_operations')}
       WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0];
  }

  /** Ends an operation that is still open; a finished one keeps its first outcome. */
  async finishOperation(
    tx: Tx,
    id: string,
    status: Exclude<OperationStatus, 'sending' | 'accepted'>,
    now: Date,
    error?: string,
  ): Promise<void> {
    await tx.query(
      `UPDATE ${table(tx, 'payment_operations')}
       SET status = $2, completed_at = $3, last_error = coalesce($4, last_error), locked_until = NULL
       WHERE id = $1 AND status IN ('sending', 'accepted')`,
      [id, status, now, error ?? null],
    );
  }

  /**
   * Records a trigger the payment saw, in the transaction that locked the payment. Past
   * `LISTED_IGNORED_EVENTS` ignored ones, an ignored trigger is counted on the last of them
   * instead of listed.
   */
  async record(
    tx: Tx,
    paymentId: string,
    event: Omit<PaymentEventRecord, 'recordedAt' | 'repeats' | 'lastRecordedAt'>,
    now: Date,
  ): Promise<void> {
    if (!event.applied) {
      const [listed] = (await tx.query(
        `SELECT count(*)::int AS ignored, max(id) AS latest
           FROM ${table(tx, 'payment_events')} WHERE payment_id = $1 AND NOT applied`,
        [paymentId],
      )) as Array<{ ignored: number; latest: string | null }>;
      if (listed.ignored >= LISTED_IGNORED_EVENTS) {
        await tx.query(
          `UPDATE ${table(tx, 'payment_events')}
              SET repeats = repeats + 1, last_recorded_at = $2 WHERE id = $1`,
          [listed.latest, now],
        );
        return;
      }
    }
    await tx.query(
      `INSERT INTO ${table(tx, 'payment_events')} (payment_id, trigger, event_id, operation_id, reason,
         applied, note, state_before, state_after, occurred_at, recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        paymentId,
        event.trigger,
        event.eventId,
        event.operationId,
        event.reason,
        event.applied,
        event.note,
        event.stateBefore,
        event.stateAfter,
        event.occurredAt,
        now,
      ],
    );
  }

  async operationsOf(tx: Tx, paymentId: string): Promise<PaymentOperation[]> {
    const rows: OperationRow[] = await tx.query(
      `SELECT id, payment_id, type, status, send_attempts, last_error, created_at, accepted_at,
              completed_at, deadline_at
       FROM ${table(tx, 'payment_operations')} WHERE payment_id = $1 ORDER BY created_at, id`,
      [paymentId],
    );
    return rows.map((row) => ({
      id: row.id,
      paymentId: row.payment_id,
      type: row.type,
      status: row.status,
      sendAttempts: row.send_attempts,
      lastError: row.last_error,
      createdAt: row.created_at,
      acceptedAt: row.accepted_at,
      completedAt: row.completed_at,
      deadlineAt: row.deadline_at,
    }));
  }

  async eventsOf(tx: Tx, paymentId: string): Promise<PaymentEventRecord[]> {
    const rows: EventRow[] = await tx.query(
      `SELECT trigger, event_id, operation_id, reason, applied, note, state_before, state_after,
              occurred_at, recorded_at, repeats, last_recorded_at
       FROM ${table(tx, 'payment_events')} WHERE payment_id = $1 ORDER BY id`,
      [paymentId],
    );
    return rows.map((row) => ({
      trigger: row.trigger,
      eventId: row.event_id,
      operationId: row.operation_id,
      reason: row.reason,
      applied: row.applied,
      note: row.note,
      stateBefore: row.state_before,
      stateAfter: row.state_after,
      occurredAt: row.occurred_at,
      recordedAt: row.recorded_at,
      repeats: row.repeats,
      lastRecordedAt: row.last_recorded_at,
    }));
  }
}

export function table(tx: Tx, name: string): string {
  return `"${schemaOf(tx.connection)}"."${name}"`;
}

function toPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    orderId: row.order_id,
    merchantId: row.merchant_id,
    paymentMethod: row.payment_method,
    amount: { value: Number(row.amount_value), currency: row.currency },
    saga: {
      state: row.state,
      pending:
        row.pending_operation_id && row.pending_operation_type
          ? { id: row.pending_operation_id, type: row.pending_operation_type }
          : null,
      failureReason: row.failure_reason,
      reservationExpiresAt: row.reservation_expires_at,
      captureFailures: row.capture_failures,
      lastAnnulmentId: row.last_annulment_id,
      annulmentFailures: row.annulment_failures,
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
