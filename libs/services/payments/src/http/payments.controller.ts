import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { UnitOfWork } from '@comanda/persistence';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import { GetPayment } from '../usecases/get-payment/get-payment.usecase';
import { PaymentView } from './payment.view';

@ApiTags('payments')
@Controller('payments')
export class PaymentsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly getPayment: GetPayment,
  ) {}

  /** State, operations and every event the payment saw, with times. */
  @Get(':id')
  @ApiOkResponse({ type: PaymentView })
  @RequirePermission('orders:read')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<PaymentView> {
    const details = await this.unitOfWork.run((tx) =>
      this.getPayment.execute(tx, principal.tenantId, id),
    );
    return PaymentView.of(details);
  }
}
