import { Body, Controller, Get, Param, Put, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { UnitOfWork } from '@comanda/persistence';
import { RuntimeConfig } from '@comanda/runtime';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import { ConfigureMerchant } from '../usecases/configure-merchant/configure-merchant.usecase';
import { MerchantNotFoundError } from '../usecases/configure-merchant/merchant.errors';
import { MerchantRepository } from '../persistence/merchant.repository';
import { MerchantIdPipe } from './merchant-id.pipe';
import { MerchantInputDto } from './merchant-input.dto';
import { MerchantView } from './merchant.view';

@ApiTags('payments')
@Controller('payments/merchants')
export class MerchantsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly configure: ConfigureMerchant,
    private readonly merchants: MerchantRepository,
    private readonly runtime: RuntimeConfig,
  ) {}

  /** Creates (201) or replaces (200) a merchant of the caller's tenant. */
  @Put(':id')
  @ApiCreatedResponse({ type: MerchantView, description: 'The merchant was created' })
  @ApiOkResponse({ type: MerchantView, description: 'The merchant was replaced' })
  @RequirePermission('payments:admin')
  async put(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MerchantIdPipe) id: string,
    @Body() body: MerchantInputDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MerchantView> {
    await this.configure.checkPartnerUrl(body.partnerUrl);
    const { merchant, created } = await this.unitOfWork.run((tx) =>
      this.configure.execute(tx, principal.tenantId, id, body),
    );
    void reply.status(created ? 201 : 200);
    return MerchantView.of(merchant, this.runtime.COMANDA_PUBLIC_URL);
  }

  @Get(':id')
  @ApiOkResponse({ type: MerchantView })
  @RequirePermission('payments:admin')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MerchantIdPipe) id: string,
  ): Promise<MerchantView> {
    const merchant = await this.unitOfWork.run((tx) =>
      this.merchants.find(tx, principal.tenantId, id),
    );
    if (!merchant) throw new MerchantNotFoundError(id);
    return MerchantView.of(merchant, this.runtime.COMANDA_PUBLIC_URL);
  }
}
