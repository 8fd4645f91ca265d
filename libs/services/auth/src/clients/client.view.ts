import type { ApiClient } from './api-client.entity';

/** A client as the admin API shows it: never a secret. */
export interface ClientView {
  clientId: string;
  name: string;
  tenantIds: string[];
  environment: 'test' | 'production';
  permissions: string[];
  personalData: boolean;
  contacts: { primary: string; secondary: string };
  useCase: string;
  createdAt: string;
  revokedAt: string | null;
}

export function toClientView(client: ApiClient): ClientView {
  return {
    clientId: client.clientId,
    name: client.name,
    tenantIds: client.tenantIds,
    environment: client.environment,
    permissions: client.permissions,
    personalData: client.personalData,
    contacts: { primary: client.contactPrimary, secondary: client.contactSecondary },
    useCase: client.useCase,
    createdAt: client.createdAt.toISOString(),
    revokedAt: client.revokedAt?.toISOString() ?? null,
  };
}
