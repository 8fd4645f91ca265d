import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { RequestValidationError } from '@comanda/http';
import { UnitOfWork } from '@comanda/persistence';
import {
  CurrentPrincipal,
  redactPersonalData,
  RequirePermission,
  type Principal,
} from '@comanda/security';
import { LIMITS } from '../domain/limits';
import { ORDER_STATUSES, type OrderStatus } from '../domain/order';
import { SendConfirmationEmail } from '../usecases/confirmation-email/send-confirmation-email.usecase';
import { decodeCursor, ListOrders } from '../usecases/reads/list-orders.usecase';
import { ReadOrder } from '../usecases/reads/read-order.usecase';
import {
  ConfirmationEmailView,
  OrdersPageView,
  OrderView,
  ReceiptView,
  toOrderView,
} from './order.view';

function statusOf(value: string | undefined): OrderStatus | undefined {
  if (value === undefined) return undefined;
  if ((ORDER_STATUSES as readonly string[]).includes(value)) return value as OrderStatus;
  throw new RequestValidationError([
    { path: 'placementStatus', message: `must be one of ${ORDER_STATUSES.join(', ')}` },
  ]);
}

function limitOf(value: string | undefined): number {
  if (value === undefined) return LIMITS.pageSizeDefault;
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > LIMITS.pageSizeMax) {
    throw new RequestValidationError([
      { path: 'limit', message: `must be an integer from 1 to ${LIMITS.pageSizeMax}` },
    ]);
  }
  return limit;
}

/** JSON unless the Accept header ranks plain text above it (no Accept header: JSON). */
function prefersPlainText(request: FastifyRequest): boolean {
  const negotiator = new Negotiator(request.raw);
  return negotiator.mediaType(['application/json', 'text/plain']) === 'text/plain';
}

function cursorOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > 200 || !decodeCursor(value)) {
    throw new RequestValidationError([{ path: 'cursor', message: 'is not a cursor of this list' }]);
  }
  return value;
}

@ApiTags('orders')
@Controller('orders')
@RequirePermission('orders:read')
export class OrdersController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly readOrder: ReadOrder,
    private readonly listOrders: ListOrders,
    private readonly confirmationEmail: SendConfirmationEmail,
  ) {}

  /** `placementStatus=ready`: the orders waiting for a POS, for adapters that poll. */
  @Get()
  @ApiQuery({ name: 'placementStatus', required: false, enum: ORDER_STATUSES })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiOkResponse({ type: OrdersPageView })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query('placementStatus') placementStatus: string | undefined,
    @Query('limit') limit: string | undefined,
    @Query('cursor') cursor: string | undefined,
  ): Promise<OrdersPageView> {
    const query = {
      tenantId: principal.tenantId,
      status: statusOf(placementStatus),
      limit: limitOf(limit),
      cursor: cursorOf(cursor),
    };
    const page = await this.unitOfWork.run((tx) => this.listOrders.execute(tx, query));
    return {
      items: page.items.map((order) => toOrderView(order, principal)),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  }

  @Get(':orderId')
  @ApiOkResponse({ type: OrderView })
  async read(
    @CurrentPrincipal() principal: Principal,
    @Param('orderId') orderId: string,
  ): Promise<OrderView> {
    const order = await this.unitOfWork.run((tx) =>
      this.readOrder.execute(tx, principal.tenantId, orderId),
    );
    return toOrderView(order, principal);
  }

  /**
   * The receipt as the POS reported it: in JSON, as every answer of the API (the spec), or
   * as the text itself, byte for byte, to a client that asks for `text/plain` before JSON
   * (a printer).
   */
  @Get(':orderId/receipt')
  @ApiProduces('application/json', 'text/plain')
  @ApiOkResponse({
    type: ReceiptView,
    description:
      'The receipt exactly as the POS reported it; the text alone (`text/plain`) when the `Accept` header prefers it to JSON',
  })
  async receipt(
    @CurrentPrincipal() principal: Principal,
    @Param('orderId') orderId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ReceiptView | string> {
    const receipt = await this.unitOfWork.run((tx) =>
      this.readOrder.receipt(tx, principal.tenantId, orderId),
    );
    void reply.header('vary', 'Accept');
    if (prefersPlainText(request)) {
      // The POS wrote the text: a browser must not sniff HTML or script in it.
      void reply.type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff');
      return receipt;
    }
    return { orderId, receipt };
  }

  @Get(':orderId/confirmation-email')
  @ApiOkResponse({ type: ConfirmationEmailView })
  async email(
    @CurrentPrincipal() principal: Principal,
    @Param('orderId') orderId: string,
  ): Promise<ConfirmationEmailView> {
    const mail = await this.unitOfWork.run((tx) =>
      this.confirmationEmail.read(tx, principal.tenantId, orderId),
    );
    const view: ConfirmationEmailView = {
      orderId: mail.orderId,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      transport: mail.transport,
      createdAt: mail.createdAt.toISOString(),
    };
    return redactPersonalData(view, principal, ['to']);
  }
}
