export { gatewayService } from './gateway.service-definition';
export { GatewayConfig } from './config/gateway.config';
