import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { StorableInputGuard } from '@comanda/http';
import { UnitOfWork } from '@comanda/persistence';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import type { CallbackOutcome } from '../usecases/callback-outcome';
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
  ) {}

  @Post('place-order-session/start')
  @HttpCode(200)
  @ApiOkResponse({ type: OrderView, description: 'The full order' })
  @ApiResponse({ status: 409, description: 'The order is not ready to be placed' })
  async start(
    @CurrentPrincipal() principal: Principal,
    @Param('orderId') orderId: string,
    @Body() input: StartSessionDto,
  ): Promise<OrderView> {
    const order = await this.unitOfWork.run((tx) =>
      this.startSession.execute(tx, {
        tenantId: principal.tenantId,
        orderId,
        placeOrderSessionId: input.placeOrderSessionId,
      }),
    );
    return toOrderView(order, principal);
  }

  @Post('pos/placed')
  @HttpCode(200)
  @ApiOkResponse({ type: CallbackAnswerView })
  @ApiResponse({ status: 405, description: 'The order is already finalized' })
  @ApiResponse({ status: 409, description: 'An orderRefsDict value belongs to another order' })
  async placed(
    @CurrentPrincipal() principal: Principal,
    @Param('orderId') orderId: string,
    @Body() input: PlacedReportDto,
  ): Promise<CallbackAnswerView> {
    const { receipt, ...report } = input;
    const outcome = await this.unitOfWork.run((tx) =>
      this.reportPlaced.execute(tx, {
        tenantId: principal.tenantId,
        orderId,
        report: { ...report },
        receipt,
      }),
    );
    return answer(outcome);
  }

  @Post('pos/failed')
  @HttpCode(200)
  @ApiOkResponse({ type: CallbackAnswerView })
  @ApiResponse({ status: 405, description: 'The order is already finalized' })
  async failed(
    @CurrentPrincipal() principal: Principal,
    @Param('orderId') orderId: string,
    @Body() input: FailedReportDto,
  ): Promise<CallbackAnswerView> {
    const outcome = await this.unitOfWork.run((tx) =>
      this.reportFailed.execute(tx, { tenantId: principal.tenantId, orderId, ...input }),
    );
    return answer(outcome);
  }
}
