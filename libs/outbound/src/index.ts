// Requests Comanda sends to addresses its tenants and partners gave it, and their signatures.
export {
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
  signBody,
  verifySignature,
} from './signature';
export type { SignatureCheck, SignatureRejection } from './signature';
export {
  assertAddressAllowed,
  ipLiteral,
  outboundPolicyFor,
  parseOutboundUrl,
  UnsafeUrlError,
} from './outbound-policy';
export type { OutboundPolicy } from './outbound-policy';
export { OutboundHttp } from './outbound-http';
export type { OutboundRequest, OutboundResponse } from './outbound-http';
