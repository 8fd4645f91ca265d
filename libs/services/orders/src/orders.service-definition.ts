import type { ServiceDefinition } from '@comanda/runtime';
import { OrdersConfig } from './orders.config';
import { WebhooksConfig } from './subscriptions/webhooks.config';
import { secretBoxFrom } from '@comanda/security';
import { orderProblem } from './http/order-error-status';
import { OrdersModule } from './orders.module';
import { BasketEntity } from './persistence/basket.entity';
import { ConfirmationEmailEntity } from './persistence/confirmation-email.entity';
import { AddBasketCurrency1793000000000 } from './persistence/add-basket-currency.migration';
import { CreateOrdersTables1764000000000 } from './persistence/create-orders-tables.migration';
import { OrderChargesEntity } from './persistence/order-charges.entity';
import { OrderEntity } from './persistence/order.entity';
import { StoreEntity } from './persistence/store.entity';
import {
  SUBSCRIPTION_ENTITIES,
  subscriptionMigrations,
  subscriptionProblem,
} from './subscriptions';

/** Stores, menus, baskets and orders under `/stores`, `/baskets`, `/orders`, schema `orders`. */
export const ordersService: ServiceDefinition = {
  name: 'orders',
  configs: [OrdersConfig, WebhooksConfig],
  database: {
    schema: 'orders',
    entities: [
      StoreEntity,
      BasketEntity,
      OrderEntity,
      OrderChargesEntity,
      ConfirmationEmailEntity,
      ...SUBSCRIPTION_ENTITIES,
    ],
    // Sealing the webhook secrets stored in clear before needs the key (ADR 0040).
    migrations: (env) => [
      CreateOrdersTables1764000000000,
      ...subscriptionMigrations(secretBoxFrom(env, 'orders')),
      AddBasketCurrency1793000000000,
    ],
  },
  module: OrdersModule,
  // Menus of the item limit with their mappingDetails fit; the gateway allows the same.
  bodyLimitBytes: 1024 * 1024,
  domainProblems: (error) => orderProblem(error) ?? subscriptionProblem(error),
};
