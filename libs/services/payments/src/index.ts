export { paymentsService } from './payments.service-definition';
export { PaymentsConfig } from './payments.config';
// A partner over real HTTP for tests (integration and end to end), chosen per paymentMethod.
export { FakePartner, succeed } from './testing/fake-partner';
export type { PartnerReply, PartnerScript, ReceivedOperation } from './testing/fake-partner';
export type { OperationRequestBody } from './domain/payment';
