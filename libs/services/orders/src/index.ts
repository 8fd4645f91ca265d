export { ordersService } from './orders.service-definition';
export { OrdersConfig } from './orders.config';
export { ORDER_TRANSITIONS } from './domain/order';
export type { OrderStatus, OrderTrigger } from './domain/order';
