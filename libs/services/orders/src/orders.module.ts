import { Module } from '@nestjs/common';
import { loadConfig, RUNTIME_ENV, type RuntimeEnv } from '@comanda/runtime';
import { ConfirmationEmailConsumer } from './consumers/confirmation-email.consumer';
import { OrderChargesConsumer } from './consumers/order-charges.consumer';
import { PaymentEventsConsumer } from './consumers/payment-events.consumer';
import { BasketsController } from './http/baskets.controller';
import { CatalogueController } from './http/catalogue.controller';
import { OrdersController } from './http/orders.controller';
import { PlacementController } from './http/placement.controller';
import { MailTransport, SmtpMailTransport, StoredOnlyMailTransport } from './mail/mail-transport';
import { OrdersConfig } from './orders.config';
import { BasketRepository } from './persistence/basket.repository';
import { CheckoutKeysRepository } from './persistence/checkout-keys.repository';
import { ConfirmationEmailRepository } from './persistence/confirmation-email.repository';
import { OrderChargesRepository } from './persistence/order-charges.repository';
import { OrderRefsRepository } from './persistence/order-refs.repository';
import { OrderRepository } from './persistence/order.repository';
import { StoreRepository } from './persistence/store.repository';
import { SubscriptionsModule } from './subscriptions';
import { PlacementTimeoutHandler } from './timers/placement-timeout.handler';
import { AddDiscount } from './usecases/baskets/add-discount.usecase';
import { AddItem } from './usecases/baskets/add-item.usecase';
import { CreateBasket } from './usecases/baskets/create-basket.usecase';
import { ReadBasket } from './usecases/baskets/read-basket.usecase';
import { ReadStore } from './usecases/catalogue/read-store.usecase';
import { SaveMenu } from './usecases/catalogue/save-menu.usecase';
import { SaveStore } from './usecases/catalogue/save-store.usecase';
import { ProjectOrderCharges } from './usecases/charges/project-order-charges.usecase';
import { Checkout } from './usecases/checkout/checkout.usecase';
import { CloseOrder } from './usecases/close-order/close-order';
import { SendConfirmationEmail } from './usecases/confirmation-email/send-confirmation-email.usecase';
import { OrderAnnouncer } from './usecases/order-announcer';
import { ApplyPaymentEvent } from './usecases/payments/apply-payment-event.usecase';
import { StartSession } from './usecases/place-order-session/start-session.usecase';
import { OpenCallback } from './usecases/open-callback';
import { ExpirePlacement } from './usecases/placement-timeout/expire-placement.usecase';
import { PlacementTimers } from './usecases/placement-timers';
import { ListOrders } from './usecases/reads/list-orders.usecase';
import { ReadOrder } from './usecases/reads/read-order.usecase';
import { ReportFailed } from './usecases/report-failed/report-failed.usecase';
import { ReportPlaced } from './usecases/report-placed/report-placed.usecase';

/** Catalogue, baskets, checkout, orders and their placement in a POS. */
@Module({
  imports: [SubscriptionsModule],
  controllers: [
    CatalogueController,
    BasketsController,
    PlacementController,
    OrdersController,
    // Nest finds message handlers on controllers only.
    PaymentEventsConsumer,
    OrderChargesConsumer,
    ConfirmationEmailConsumer,
  ],
  providers: [
    {
      provide: OrdersConfig,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => loadConfig(OrdersConfig, env),
    },
    {
      provide: MailTransport,
      inject: [OrdersConfig],
      useFactory: (config: OrdersConfig): MailTransport =>
        config.SMTP_URL ? new SmtpMailTransport(config.SMTP_URL) : new StoredOnlyMailTransport(),
    },
    StoreRepository,
    BasketRepository,
    OrderRepository,
    OrderRefsRepository,
    OrderChargesRepository,
    CheckoutKeysRepository,
    ConfirmationEmailRepository,
    OrderAnnouncer,
    PlacementTimers,
    CloseOrder,
    SaveStore,
    SaveMenu,
    ReadStore,
    CreateBasket,
    ReadBasket,
    AddItem,
    AddDiscount,
    Checkout,
    StartSession,
    ReportPlaced,
    ReportFailed,
    ExpirePlacement,
    OpenCallback,
    ApplyPaymentEvent,
    ProjectOrderCharges,
    SendConfirmationEmail,
    ReadOrder,
    ListOrders,
    PlacementTimeoutHandler,
  ],
})
export class OrdersModule {}
