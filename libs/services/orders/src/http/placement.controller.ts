import { Body, Controller, HttpCode, Param, Post, UseGuards, type Type } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  BodyRefusalToHandler,
  createValidationPipe,
  RefusedBody,
  StorableInputGuard,
} from '@comanda/http';
import { UnitOfWork } from '@comanda/persistence';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import type { CallbackOutcome } from '../usecases/callback-outcome';
import { OpenCallback, type PosCallback } from '../usecases/open-callback';
import { StartSession } from '../usecases/place-order-session/start-session.usecase';
import { ReportFailed } from '../usecases/report-failed/report-failed.usecase';
import { ReportPlaced } from '../usecases/report-placed/report-placed.usecase';
import { toOrderView, OrderView } from './order.view';
import {
  CallbackAnswerView,
  FailedReportDto,
  PlacedReportDto,
  StartSessionDto,
} from './placement.dto';

/** A refused callback is committed to the timeline first, then answered as its error. */
function answer(outcome: CallbackOutcome): CallbackAnswerView {
  if (!outcome.accepted) throw outcome.error;
  return { orderId: outcome.order.id, status: outcome.order.status };
}

@ApiTags('order placement')
@Controller('orders/:orderId')
@RequirePermission('orders:placement')
@UseGuards(StorableInputGuard)
export class PlacementController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly startSession: StartSession,
    private readonly reportPlaced: ReportPlaced,
    private readonly reportFailed: ReportFailed,
    private readonly openCallback: OpenCallback,
  ) {}

  private readonly validation = createValidationPipe();

  /**
   * The report, validated as the global pipe would, and when it arrived (the deadline is
   * judged at that instant, not when a slow database lets it through). A finalized order
   * answers 405 to any report (the spec's rule has no condition), so a report that fails
   * validation, or whose body is not JSON at all (`BodyRefusalToHandler`), is first checked
   * against the order: 405 when it is finalized, else the 400.
   */
  private async report<T>(
    principal: Principal,
    orderId: string,
    callback: PosCallback,
    type: Type<T>,
    body: unknown,
  ): Promise<{ input: T; receivedAt: Date }> {
    const receivedAt = new Date();
    try {
      if (body instanceof RefusedBody) throw body.error;
      const input = (await this.validation.transform(body, { type: 'body', metatype: type })) as T;
      return { input, receivedAt };
    } catch (invalid) {
      const call = { tenantId: principal.tenantId, orderId, refusal: { callback }, receivedAt };
      const opened = await this.unitOfWork.run((tx) =>
        this.openCallback.withDeadlinesArmed(tx, call),
      );
      if (opened.refused) throw opened.refused.error;
      throw invalid;
    }
  }

  @Post('place-order-session/start')
  @HttpCode(200)
  @ApiOkResponse({ type: OrderView, description: 'The full order' })
  @ApiResponse({ status: 409, description: 'The order is not ready to be placed' })
  async start(
    @CurrentPrincipal() principal: Principal,
    @Param('orderId') orderId: string,
    @Body() input: StartSessionDto,
  ): Promise<OrderView> {
    // Deadlines are judged at the call's arrival, not when a slow database lets it through.
    const receivedAt = new Date();
    const outcome = await this.unitOfWork.run((tx) =>
      this.startSession.execute(tx, {
        tenantId: principal.tenantId,
        orderId,
        placeOrderSessionId: input.placeOrderSessionId,
        receivedAt,
      }),
    );
    // Refused after the deadline: the order's failure is committed first.
    if (outcome.refused) throw outcome.refused;
    return toOrderView(outcome.order, principal);
  }

  @Post('pos/placed')
  @BodyRefusalToHandler()
  @HttpCode(200)
  @ApiOkResponse({ type: CallbackAnswerView })
  @ApiResponse({ status: 405, description: 'The order is already finalized' })
  @ApiResponse({
    status: 409,
    description:
      'The order still waits for its payment (order.not_ready), or an orderRefsDict value belongs to another order (order.ref_taken)',
  })
  @ApiBody({ type: PlacedReportDto })
  async placed(
    @CurrentPrincipal() principal: Principal,
    @Param('orderId') orderId: string,
    @Body() body: unknown,
  ): Promise<CallbackAnswerView> {
    const { input, receivedAt } = await this.report(
      principal,
      orderId,
      'pos/placed',
      PlacedReportDto,
      body,
    );
    const { receipt, ...report } = input;
    const outcome = await this.unitOfWork.run((tx) =>
      this.reportPlaced.execute(tx, {
        tenantId: principal.tenantId,
        orderId,
        report: { ...report },
        receipt,
        receivedAt,
      }),
    );
    return answer(outcome);
  }

  @Post('pos/failed')
  @BodyRefusalToHandler()
  @HttpCode(200)
  @ApiOkResponse({ type: CallbackAnswerView })
  @ApiResponse({ status: 405, description: 'The order is already finalized' })
  @ApiResponse({
    status: 409,
    description: 'The order still waits for its payment (order.not_ready)',
  })
  @ApiBody({ type: FailedReportDto })
  async failed(
    @CurrentPrincipal() principal: Principal,
    @Param('orderId') orderId: string,
    @Body() body: unknown,
  ): Promise<CallbackAnswerView> {
    const { input, receivedAt } = await this.report(
      principal,
      orderId,
      'pos/failed',
      FailedReportDto,
      body,
    );
    const outcome = await this.unitOfWork.run((tx) =>
      this.reportFailed.execute(tx, {
        tenantId: principal.tenantId,
        orderId,
        ...input,
        receivedAt,
      }),
    );
    return answer(outcome);
  }
}
