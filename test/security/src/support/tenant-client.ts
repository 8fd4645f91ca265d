import { adminCall, tenantId, tokenFor } from './clients';
import type { Deployment } from './deployment';

/** A fresh tenant and a client of it with these permissions; returns a token of it. */
export async function tenantClientToken(
  platform: Deployment,
  permissions: string[],
  prefix = 'sec',
): Promise<{ tenant: string; token: string }> {
  const tenant = tenantId(prefix);
  const created = await adminCall(platform, '/admin/tenants', {
    method: 'POST',
    body: { id: tenant, name: `Security ${tenant}` },
  });
  if (created.status !== 201) throw new Error(`tenant: ${created.status} ${await created.text()}`);
  const client = await adminCall(platform, '/admin/clients', {
    method: 'POST',
    body: {
      name: `client of ${tenant}`,
      tenantIds: [tenant],
      environment: 'test',
      permissions,
      personalData: false,
      contacts: { primary: 'sec@example.com', secondary: '+351 000 000 000' },
      useCase: 'security suite',
    },
  });
  const body = (await client.json()) as { clientId: string; clientSecret: string };
  if (client.status !== 201) throw new Error(`client: ${client.status} ${JSON.stringify(body)}`);
  return { tenant, token: await tokenFor(platform.baseUrl, tenant, body) };
}
