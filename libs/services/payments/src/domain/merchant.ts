/**
 * A payment partner account of a tenant: where operations go. The secret both ways are
 * signed with is not part of it: it is stored sealed and opened only to sign an operation.
 */
export interface Merchant {
  id: string;
  tenantId: string;
  name: string;
  partnerUrl: string;
  /**
   * While a secret rollover lasts (ADR 0070): until when the secret the last save replaced
   * stays valid beside the new one. Null when none was kept; a time in the past once over.
   */
  previousSecretValidUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Ids appear in URL paths (`/notifications/merchants/{id}/events`): a conservative alphabet. */
export const MERCHANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MERCHANT_ID_MAX_LENGTH = 64;
