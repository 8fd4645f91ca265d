import { PROTOTYPE_KEYS } from '@comanda/http';
import { PERMISSION_NAMES } from '@comanda/security';
import { adminToken, expectPlatformServing, V0 } from './support/clients';
import { startDeployment, type Deployment } from './support/deployment';
import { attackSurfaces, pathWith, type Surface } from './support/surfaces';
import { tenantClientToken } from './support/tenant-client';

// The keys; the helper's list adds more of Object.prototype.
const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

describe('row 1 (critical): no request keyed by a prototype name crashes a process', () => {
  let deployment: Deployment;
  let surfaces: Surface[];
  /** `platform:admin`, and a tenant's client holding every tenant permission. */
  let tokens: string[];

  beforeAll(async () => {
    deployment = await startDeployment('proto');
    const permissions = PERMISSION_NAMES.filter(
      (permission) => permission !== 'platform:admin' && permission !== 'personal-data:read',
    );
    const tenant = await tenantClientToken(deployment, permissions, 'proto');
    tokens = [await adminToken(deployment), tenant.token];
    surfaces = await attackSurfaces(deployment);
  });
  afterAll(() => deployment?.close());

  it.each(KEYS)(
    'GET /docs/assets/%s answers 404 problem+json and the process lives',
    async (key) => {
      const response = await fetch(`${deployment.baseUrl}/docs/assets/${encodeURIComponent(key)}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      await expectPlatformServing(deployment);
    },
  );

  it('covers every route of the API description, on every port an attacker reaches', () => {
    expect(surfaces[0].operations.length).toBeGreaterThan(20);
    // Distributed: every service's own port, each with the operations it describes.
    expect(surfaces.length).toBe(1 + deployment.internal.length);
    for (const surface of surfaces.slice(1)) expect(surface.operations.length).toBeGreaterThan(0);
    expect(PROTOTYPE_KEYS).toEqual(expect.arrayContaining(KEYS));
  });

  it('answers every operation with a prototype key as each path parameter, query key and JSON key without a server error', async () => {
    const failures: string[] = [];
    /** Answers past authentication and input checks: the key reached the service's own code. */
    const reached = new Map<string, number>();
    for (const surface of surfaces) {
      reached.set(surface.name, 0);
      for (const { method, path } of surface.operations) {
        for (const key of KEYS) {
          const query = KEYS.map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(key)}`).join(
            '&',
          );
          const url = `${surface.url}${pathWith(path, key)}?${query}`;
          const hasBody = method !== 'GET' && method !== 'DELETE';
          // A body polluting prototypes, and one the input guard lets through to the handler
          // (so the path parameter and query keys reach the service's own code).
          const bodies = hasBody
            ? [
                `{"${key}":{"${key}":"x","__proto__":{"polluted":true}},"constructor":{"prototype":{"polluted":true}}}`,
                '{}',
              ]
            : [undefined];
          for (const authorization of [...tokens.map((token) => `Bearer ${token}`), undefined]) {
            for (const body of bodies) {
              const response = await fetch(url, {
                method,
                headers: {
                  ...V0,
                  ...(authorization ? { authorization } : {}),
                  ...(hasBody ? { 'content-type': 'application/json' } : {}),
                },
                body,
              });
              await response.arrayBuffer();
              if (![400, 401, 403, 405, 415].includes(response.status)) {
                reached.set(surface.name, (reached.get(surface.name) ?? 0) + 1);
              }
              if (response.status >= 500 || !surface.process.alive()) {
                failures.push(`${surface.name}: ${method} ${path} with ${key}: ${response.status}`);
              }
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect([...reached].filter(([, count]) => count === 0)).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    await expectPlatformServing(deployment);
  });
});
