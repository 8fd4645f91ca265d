import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { StorableInputGuard } from '@comanda/http';
import { isUuid, UnitOfWork } from '@comanda/persistence';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import { CreateSubscriptionDto } from './create-subscription.dto';
import { DeliveryLog } from './delivery-log.usecase';
import { parseDeliveryQuery } from './delivery-query';
import { ManageSubscriptions } from './manage-subscriptions.usecase';
import { DeliveryNotFoundError, SubscriptionNotFoundError } from './subscription.errors';
import { CreatedSubscriptionView, DeliveryView, SubscriptionView } from './subscription.views';

@ApiTags('event-subscriptions')
@Controller('event-subscriptions')
@UseGuards(StorableInputGuard)
export class SubscriptionsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly subscriptions: ManageSubscriptions,
    private readonly deliveries: DeliveryLog,
  ) {}

  /** 201 with the signing secret, shown this once. */
  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ type: CreatedSubscriptionView })
  @ApiResponse({ status: 409, description: 'The tenant has the most subscriptions allowed' })
  @ApiResponse({ status: 422, description: 'The URL may not be called from this deployment' })
  @RequirePermission('orders:read')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() input: CreateSubscriptionDto,
  ): Promise<CreatedSubscriptionView> {
    return this.unitOfWork.run((tx) =>
      this.subscriptions.create(tx, {
        tenantId: principal.tenantId,
        clientId: principal.clientId,
        url: input.url,
        types: input.types,
      }),
    );
  }

  @Get()
  @ApiOkResponse({ type: [SubscriptionView] })
  @RequirePermission('orders:read')
  async list(@CurrentPrincipal() principal: Principal): Promise<SubscriptionView[]> {
    return this.unitOfWork.run((tx) => this.subscriptions.list(tx, principal.tenantId));
  }

  @Get(':id')
  @ApiOkResponse({ type: SubscriptionView })
  @RequirePermission('orders:read')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<SubscriptionView> {
    subscriptionId(id);
    return this.unitOfWork.run((tx) => this.subscriptions.get(tx, principal.tenantId, id));
  }

  /** Answers the deleted subscription; its pending deliveries are dropped with it. */
  @Delete(':id')
  @ApiOkResponse({ type: SubscriptionView })
  @RequirePermission('orders:read')
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<SubscriptionView> {
    subscriptionId(id);
    return this.unitOfWork.run((tx) => this.subscriptions.delete(tx, principal.tenantId, id));
  }

  /** Newest first; `status`, `limit` (1-100, default 20) and `offset` narrow it. */
  @Get(':id/deliveries')
  @ApiOkResponse({ type: [DeliveryView] })
  @ApiQuery({ name: 'status', required: false, enum: ['pending', 'succeeded', 'failed', 'paused'] })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1-100, default 20' })
  @ApiQuery({ name: 'offset', required: false, type: Number })
  @RequirePermission('orders:read')
  async listDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query('status') status: string | undefined,
    @Query('limit') limit: string | undefined,
    @Query('offset') offset: string | undefined,
  ): Promise<DeliveryView[]> {
    subscriptionId(id);
    const query = parseDeliveryQuery({ status, limit, offset });
    return this.unitOfWork.run((tx) => this.deliveries.list(tx, principal.tenantId, id, query));
  }

  /** 202: the sender makes the attempt right after (ADR 0043). */
  @Post(':id/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: DeliveryView })
  @RequirePermission('orders:read')
  async redeliver(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<DeliveryView> {
    subscriptionId(id);
    if (!isUuid(deliveryId)) throw new DeliveryNotFoundError(id, deliveryId.slice(0, 64));
    return this.unitOfWork.run((tx) =>
      this.deliveries.redeliver(tx, principal.tenantId, id, deliveryId),
    );
  }
}

function subscriptionId(id: string): void {
  if (!isUuid(id)) throw new SubscriptionNotFoundError(id.slice(0, 64));
}
