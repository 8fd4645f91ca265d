/** Who changes or reads the registry: every row is scoped to the tenant of the caller's token. */
export interface RegistryActor {
  tenantId: string;
  clientId: string;
}
