import { PROTOTYPE_KEYS } from '@comanda/http';
import { adminToken, expectPlatformServing, V0 } from './support/clients';
import { startPlatformProcess, type PlatformProcess } from './support/platform-process';

// The issue's keys; the helper's list adds more of Object.prototype.
const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

interface Operation {
  method: string;
  path: string;
}

function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const methods = new Set(['get', 'put', 'post', 'patch', 'delete']);
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => methods.has(method))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
}

describe('row 1 (critical): no request keyed by a prototype name crashes a process', () => {
  let platform: PlatformProcess;
  let operations: Operation[];
  let token: string;

  beforeAll(async () => {
    platform = await startPlatformProcess('proto');
    token = await adminToken(platform);
    const document = (await (await fetch(`${platform.baseUrl}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    operations = operationsOf(document);
  });
  afterAll(() => platform?.close());

  it.each(KEYS)(
    'GET /docs/assets/%s answers 404 problem+json and the process lives',
    async (key) => {
      const response = await fetch(`${platform.baseUrl}/docs/assets/${encodeURIComponent(key)}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      await expectPlatformServing(platform);
    },
  );

  it('covers every route of the API description', () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(PROTOTYPE_KEYS).toEqual(expect.arrayContaining(KEYS));
  });

  it('answers every operation with a prototype key as each path parameter, query key and JSON key without a server error', async () => {
    const failures: string[] = [];
    for (const { method, path } of operations) {
      for (const key of KEYS) {
        const url = `${platform.baseUrl}${path.replace(/\{[^}]+\}/g, encodeURIComponent(key))}?${KEYS.map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(key)}`).join('&')}`;
        const hasBody = method !== 'GET' && method !== 'DELETE';
        const body = `{"${key}":{"${key}":"x","__proto__":{"polluted":true}},"constructor":{"prototype":{"polluted":true}}}`;
        for (const authorization of [`Bearer ${token}`, undefined]) {
          const response = await fetch(url, {
            method,
            headers: {
              ...V0,
              ...(authorization ? { authorization } : {}),
              ...(hasBody ? { 'content-type': 'application/json' } : {}),
            },
            body: hasBody ? body : undefined,
          });
          await response.arrayBuffer();
          if (response.status >= 500 || !platform.alive()) {
            failures.push(`${method} ${path} with ${key}: ${response.status}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    await expectPlatformServing(platform);
  });
});
