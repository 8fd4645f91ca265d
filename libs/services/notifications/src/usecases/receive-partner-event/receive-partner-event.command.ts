export interface ReceivePartnerEventCommand {
  merchantId: string;
  /** The `Comanda-Signature` header as received. */
  signature: string | undefined;
  /** The body exactly as received: the signature covers these bytes. */
  rawBody: Buffer;
}

export interface ReceivedPartnerEvent {
  eventId: string;
  /** True when this (merchant, eventId) was stored before: nothing happened this time. */
  duplicate: boolean;
}
