import { lookupTable } from '@comanda/http';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PartnerEventType, PaymentOperationType } from '@comanda/contracts';
import { verifySignature } from '@comanda/outbound';
import type { OperationRequestBody } from '../domain/payment';

export interface ReceivedOperation {
  body: OperationRequestBody;
  rawBody: string;
  idempotencyKey: string | undefined;
  contentType: string | undefined;
  /** The `Comanda-Signature` header as sent. */
  signature: string | undefined;
  /** Whether it verifies with the secret this partner holds. */
  signatureValid: boolean;
  status: number;
}

/** What the partner answers to one request, and which event (if any) it sends after. */
export interface PartnerReply {
  status: number;
  /** Never answers: the request stays open until the partner stops. */
  hang?: boolean;
  headers?: Record<string, string>;
  /** The answer's body (none when left out). */
  body?: string;
  event?: PartnerEventType;
}

export type PartnerScript = (operation: OperationRequestBody, attempt: number) => PartnerReply;

const SUCCESS: Record<PaymentOperationType, PartnerEventType> = lookupTable({
  registration: 'registration_succeeded',
  authorization: 'authorization_succeeded',
  capture: 'capture_succeeded',
  annulment: 'annulment_succeeded',
});

/** Accepts everything and completes each operation successfully. */
export const succeed: PartnerScript = (operation) => ({
  status: 202,
  event: SUCCESS[operation.operationType],
});

/**
 * A partner over real HTTP for the payments service's tests, chosen per `paymentMethod`
 * like the sandbox's test cards. It checks the signature with the merchant's secret and
 * hands the events it decides to send to `deliver` (the test publishes them as the
 * notification receiver would).
 */
export class FakePartner {
  readonly received: ReceivedOperation[] = [];
  private readonly scripts = new Map<string, PartnerScript>();
  private readonly attempts = new Map<string, number>();
  private server: Server | undefined;

  constructor(
    private readonly secret: string,
    private readonly deliver: (
      operation: OperationRequestBody,
      event: PartnerEventType,
    ) => Promise<void>,
  ) {}

  script(paymentMethod: string, script: PartnerScript): void {
    this.scripts.set(paymentMethod, script);
  }

  async start(): Promise<string> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/payments`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  operationsOf(paymentId: string): ReceivedOperation[] {
    return this.received.filter((operation) => operation.body.paymentId === paymentId);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const body = JSON.parse(rawBody) as OperationRequestBody;
    const attempt = (this.attempts.get(body.operationId) ?? 0) + 1;
    this.attempts.set(body.operationId, attempt);
    const script = this.scripts.get(body.paymentMethod) ?? succeed;
    const reply = script(body, attempt);
    this.received.push({
      body,
      rawBody,
      idempotencyKey: header(request, 'idempotency-key'),
      contentType: header(request, 'content-type'),
      signature: header(request, 'comanda-signature'),
      signatureValid: verifySignature(header(request, 'comanda-signature'), rawBody, this.secret)
        .valid,
      status: reply.status,
    });
    if (reply.hang) return;
    response.writeHead(reply.status, reply.headers).end(reply.body);
    if (reply.event) await this.deliver(body, reply.event);
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
