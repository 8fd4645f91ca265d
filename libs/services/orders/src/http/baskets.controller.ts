import {
  Body,
  Controller,
  createParamDecorator,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  UseGuards,
  type ExecutionContext,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import {
  createValidationPipe,
  httpRequestOf,
  RequestValidationError,
  StorableInputGuard,
} from '@comanda/http';
import { UnitOfWork } from '@comanda/persistence';
import {
  CurrentPrincipal,
  redactPersonalData,
  RequirePermission,
  type Principal,
} from '@comanda/security';
import { LIMITS } from '../domain/limits';
import { AddDiscount } from '../usecases/baskets/add-discount.usecase';
import { AddItem } from '../usecases/baskets/add-item.usecase';
import type { PricedBasket } from '../usecases/baskets/basket-view';
import { CreateBasket } from '../usecases/baskets/create-basket.usecase';
import { ReadBasket } from '../usecases/baskets/read-basket.usecase';
import { Checkout } from '../usecases/checkout/checkout.usecase';
import {
  AddItemDto,
  BasketView,
  CheckoutAnswerView,
  CreateBasketDto,
  DiscountDto,
} from './basket.dto';
import { GUEST_PERSONAL_DATA } from './order.view';

function basketView({ basket, items, totals }: PricedBasket, principal: Principal): BasketView {
  const view: BasketView = {
    id: basket.id,
    storeId: basket.storeId,
    fulfillment: basket.fulfillment,
    requestedReadyTime: basket.requestedReadyTime,
    guest: basket.guest,
    payment: basket.paymentRequest,
    lines: items.filter((item) => item.menuItemId !== undefined),
    chargeItems: items.filter((item) => item.menuItemId === undefined),
    discounts: basket.discounts,
    totals,
    orderId: basket.orderId,
    createdAt: basket.createdAt.toISOString(),
  };
  return redactPersonalData(view, principal, GUEST_PERSONAL_DATA);
}

/** The request's body as parsed, for a route that documents none (`@Body()` would). */
const UndocumentedBody = createParamDecorator(
  (_data: unknown, context: ExecutionContext): unknown =>
    httpRequestOf<FastifyRequest>(context).body,
);

/**
 * A checkout carries nothing but its basket and `Idempotency-Key`: no body, or `{}`. Members
 * sent anyway are refused (400, by the validation pipe's whitelist), as on every other
 * endpoint, rather than ignored: a caller who sends the payment here, say, learns that it
 * belongs on the basket.
 */
class CheckoutBody {}

function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.length === 0 || header.length > LIMITS.idempotencyKeyLength) {
    throw new RequestValidationError([
      {
        path: 'Idempotency-Key',
        message: `must be 1 to ${LIMITS.idempotencyKeyLength} characters`,
      },
    ]);
  }
  return header;
}

@ApiTags('baskets')
@Controller('baskets')
@UseGuards(StorableInputGuard)
export class BasketsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly createBasket: CreateBasket,
    private readonly readBasket: ReadBasket,
    private readonly addItem: AddItem,
    private readonly addDiscount: AddDiscount,
    private readonly checkout: Checkout,
  ) {}

  private readonly validation = createValidationPipe();

  @Post()
  @RequirePermission('storefront')
  @ApiCreatedResponse({ type: BasketView })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() input: CreateBasketDto,
  ): Promise<BasketView> {
    const priced = await this.unitOfWork.run((tx) =>
      this.createBasket.execute(tx, { tenantId: principal.tenantId, ...input }),
    );
    return basketView(priced, principal);
  }

  @Get(':basketId')
  @RequirePermission('storefront')
  @ApiOkResponse({ type: BasketView })
  async read(
    @CurrentPrincipal() principal: Principal,
    @Param('basketId') basketId: string,
  ): Promise<BasketView> {
    const priced = await this.unitOfWork.run((tx) =>
      this.readBasket.execute(tx, principal.tenantId, basketId),
    );
    return basketView(priced, principal);
  }

  @Post(':basketId/items')
  @RequirePermission('storefront')
  @ApiCreatedResponse({ type: BasketView })
  async addLine(
    @CurrentPrincipal() principal: Principal,
    @Param('basketId') basketId: string,
    @Body() input: AddItemDto,
  ): Promise<BasketView> {
    const priced = await this.unitOfWork.run((tx) =>
      this.addItem.execute(tx, { tenantId: principal.tenantId, basketId, ...input }),
    );
    return basketView(priced, principal);
  }

  @Post(':basketId/discounts')
  @RequirePermission('loyalty:write')
  @ApiCreatedResponse({ type: BasketView })
  async discount(
    @CurrentPrincipal() principal: Principal,
    @Param('basketId') basketId: string,
    @Body() input: DiscountDto,
  ): Promise<BasketView> {
    const discount = {
      id: input.id,
      title: input.title,
      mappingDetails: input.mappingDetails,
      amounts: input.amounts.map(({ itemId, unitId, value }) => ({ itemId, unitId, value })),
    };
    const priced = await this.unitOfWork.run((tx) =>
      this.addDiscount.execute(tx, { tenantId: principal.tenantId, basketId, discount }),
    );
    return basketView(priced, principal);
  }

  @Post(':basketId/checkout')
  @HttpCode(202)
  @RequirePermission('storefront')
  @ApiHeader({ name: 'Idempotency-Key', required: false })
  @ApiAcceptedResponse({ type: CheckoutAnswerView })
  async checkOut(
    @CurrentPrincipal() principal: Principal,
    @Param('basketId') basketId: string,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @UndocumentedBody() body: unknown,
  ): Promise<CheckoutAnswerView> {
    await this.validation.transform(body, { type: 'body', metatype: CheckoutBody });
    const key = idempotencyKeyOf(idempotencyKey);
    return this.unitOfWork.run((tx) =>
      this.checkout.execute(tx, {
        tenantId: principal.tenantId,
        basketId,
        idempotencyKey: key,
      }),
    );
  }
}
