/** Who acts on the config store: the token's client (the publisher) and its tenant. */
export interface Actor {
  clientId: string;
  tenantId: string;
}
