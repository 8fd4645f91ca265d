export { partnerSandboxService } from './partner-sandbox.service-definition';
export { PartnerSandboxConfig } from './partner-sandbox.config';
export { PAYMENT_METHOD_TOKENS } from './domain/payment-method-tokens';
export type { PaymentMethodToken } from './domain/payment-method-tokens';
export type { SandboxTransaction, TransactionState } from './domain/sandbox-transaction';
