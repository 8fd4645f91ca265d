import { randomBytes } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { registeredRoutes } from '@comanda/http';
import { startPlatform } from '@comanda/platform';
import { createTestDatabase } from '@comanda/testing';
import { expectPlatformServing, tokenFor, V0 } from './support/clients';
import { startDeployment, TARGET, type Deployment } from './support/deployment';
import { documentAt, operationsOf } from './support/surfaces';

interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
}

/** Routes every service has that are not part of the public API. */
const OPERATIONAL = /^\/(?:health|metrics|openapi\.json)(?:\/|$)/;

const HTTP_METHODS = ['get', 'put', 'post', 'patch', 'delete'];

interface Answer {
  description?: string;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}

/**
 * What is wrong with the 2xx answers of one operation: there must be one, a 204 has no body,
 * every other one names its media type (or says in its description that it has no body), and
 * a JSON body has a schema with a type, a reference or a composition (an empty schema types
 * nothing in a generated client).
 */
function describedSuccess(responses: Record<string, Answer>): string[] {
  const success = Object.entries(responses).filter(([status]) => /^2\d\d$/.test(status));
  if (success.length === 0) return ['no 2xx answer'];
  return success.flatMap(([status, answer]) => {
    const media = Object.entries(answer.content ?? {});
    if (status === '204') return media.length === 0 ? [] : [`${status} has a body`];
    // A bodiless answer other than 204 must say so; a forgotten one has an empty description.
    if (media.length === 0) return answer.description ? [] : [`${status} names no media type`];
    return media
      .filter(([type]) => /^application\/(?:[\w.-]+\+)?json$/.test(type))
      .filter(([, { schema }]) => !isTypedSchema(schema))
      .map(([type]) => `${status} ${type} has no schema`);
  });
}

function isTypedSchema(schema: Record<string, unknown> | undefined): boolean {
  if (!schema) return false;
  return ['$ref', 'type', 'allOf', 'oneOf', 'anyOf'].some((key) => key in schema);
}

/**
 * `METHOD path: Name` for each component schema that a part of an operation references and
 * that is missing or names no property (a generated client would type it as `unknown`).
 */
function emptyReferences(
  document: OpenApiDocument,
  part: (operation: { requestBody?: unknown; responses?: Record<string, unknown> }) => unknown,
): string[] {
  const schemas =
    (document as { components?: { schemas?: Record<string, { properties?: object }> } }).components
      ?.schemas ?? {};
  const empty: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.includes(method)) continue;
      const text = JSON.stringify(part(operation as never) ?? '');
      for (const [, name] of text.matchAll(/#\/components\/schemas\/(\w+)/g)) {
        if (Object.keys(schemas[name]?.properties ?? {}).length === 0)
          empty.push(`${method.toUpperCase()} ${path}: ${name}`);
      }
    }
  }
  return empty;
}

interface Described {
  baseUrl: string;
  admin: { clientId: string; clientSecret: string };
  /** `service: METHOD /path` of every route each service behind the gateway serves. */
  serviceRoutes(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Standalone: every service in this process, so the routes Fastify registered can be listed.
 * Distributed: each service its own process; the routes are those each service describes on
 * its own port, and the gateway must merge all of them from the other processes.
 */
async function describedPlatform(): Promise<Described & { deployment?: Deployment }> {
  if (TARGET === 'distributed') {
    const deployment = await startDeployment('openapi');
    return {
      deployment,
      baseUrl: deployment.baseUrl,
      admin: deployment.admin,
      serviceRoutes: async () => {
        const routes: string[] = [];
        for (const service of deployment.internal) {
          const own = operationsOf(await documentAt(service.url));
          routes.push(...own.map(({ method, path }) => `${service.name}: ${method} ${path}`));
        }
        return routes;
      },
      close: () => deployment.close(),
    };
  }
  const database = await createTestDatabase('sec_openapi');
  const admin = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') };
  const platform = await startPlatform({
    port: 0,
    env: Object.freeze({
      DATABASE_URL: database.url,
      COMANDA_ENVIRONMENT: 'test',
      COMANDA_ADMIN_CLIENT_ID: admin.clientId,
      COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
      AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      AUTH_SECRET_PEPPER: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'warn',
    }),
  }).catch(async (error: unknown) => {
    await database.drop();
    throw error;
  });
  return {
    baseUrl: platform.baseUrl,
    admin,
    serviceRoutes: async () => {
      const routes: string[] = [];
      for (const [name, service] of platform.services) {
        if (name === 'gateway') continue;
        const fastify = service.app.getHttpAdapter().getInstance();
        for (const { method, url } of registeredRoutes(fastify)) {
          const path = url.replace(/:(\w+)/g, '{$1}').replace(/\/$/, '') || '/';
          routes.push(`${name}: ${method} ${path}`);
        }
      }
      return routes;
    },
    close: async () => {
      await platform.close();
      await database.drop();
    },
  };
}

describe('row 11 (low): GET /openapi.json on the gateway is the whole API description', () => {
  let platform: Described & { deployment?: Deployment };
  let document: OpenApiDocument;

  beforeAll(async () => {
    platform = await describedPlatform();
    const response = await fetch(`${platform.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApiDocument;
  });
  afterAll(() => platform?.close());

  it('passes a well-known OpenAPI validator', async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes the problem+json answer of every operation with the Problem schema', () => {
    const without = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .filter(([, operation]) => {
          const responses = (operation as { responses?: Record<string, unknown> }).responses;
          return !JSON.stringify(responses?.['default'] ?? {}).includes(
            '#/components/schemas/Problem',
          );
        })
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(without).toEqual([]);
  });

  it('describes a 2xx answer of every operation, with a schema for every JSON body', () => {
    const undescribed: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        const responses = (operation as { responses?: Record<string, Answer> }).responses ?? {};
        const problems = describedSuccess(responses);
        if (problems.length > 0)
          undescribed.push(`${method.toUpperCase()} ${path}: ${problems.join('; ')}`);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('answers 2xx only with component schemas that exist and name their properties', () => {
    const successes = (responses: Record<string, unknown> = {}) =>
      Object.entries(responses).filter(([status]) => /^2\d\d$/.test(status));
    expect(emptyReferences(document, (operation) => successes(operation.responses))).toEqual([]);
  });

  const platformAdminToken = () =>
    tokenFor(platform.baseUrl, 'platform', platform.admin, 'platform:admin');

  /** Checks a real answer against the schema the document gives its operation and status. */
  function answerChecker() {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const components = (document as { components?: unknown }).components;
    const mismatches: string[] = [];
    const check = async (method: string, path: string, response: Response) => {
      const operation = document.paths[path]?.[method] as {
        responses: Record<string, { content?: Record<string, { schema?: object }> }>;
      };
      const schema =
        operation?.responses[String(response.status)]?.content?.['application/json']?.schema;
      if (!schema) return mismatches.push(`${method} ${path} ${response.status}: no schema`);
      const validate = ajv.compile({ ...schema, components });
      if (!validate(await response.json()))
        mismatches.push(`${method} ${path}: ${ajv.errorsText(validate.errors)}`);
    };
    return { check, mismatches };
  }

  it('describes what auth really answers: real answers match their 2xx schemas', async () => {
    const { check, mismatches } = answerChecker();
    const token = await platformAdminToken();
    const admin = { ...V0, authorization: `Bearer ${token}` };
    const get = (path: string, headers: Record<string, string> = admin) =>
      fetch(`${platform.baseUrl}${path.replace('{tenantId}', 'platform')}`, { headers });

    for (const path of ['/admin/tenants', '/admin/clients', '/admin/permissions']) {
      await check('get', path, await get(path));
    }
    for (const path of [
      '/auth/{tenantId}/.well-known/openid-configuration',
      '/auth/{tenantId}/.well-known/jwks.json',
    ]) {
      await check('get', path, await get(path, V0));
    }
    const tenant = `t${randomBytes(6).toString('hex')}`;
    const created = await fetch(`${platform.baseUrl}/admin/tenants`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ id: tenant, name: 'Described' }),
    });
    await check('post', '/admin/tenants', created);
    expect(mismatches).toEqual([]);
  });

  it('describes what the config store really answers: real answers match their 2xx schemas', async () => {
    const { check, mismatches } = answerChecker();
    const adminToken = await platformAdminToken();
    const call = (token: string, method: string, path: string, body?: unknown) =>
      fetch(`${platform.baseUrl}${path}`, {
        method,
        headers: {
          ...V0,
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const tenant = `t${randomBytes(6).toString('hex')}`;
    const tenantAnswer = await call(adminToken, 'POST', '/admin/tenants', {
      id: tenant,
      name: 'T',
    });
    expect(tenantAnswer.status).toBe(201);
    const created = await call(adminToken, 'POST', '/admin/clients', {
      name: `client of ${tenant}`,
      tenantIds: [tenant],
      environment: 'test',
      permissions: ['configs:read', 'configs:write', 'connections:read', 'connections:write'],
      personalData: false,
      contacts: { primary: 'api@example.com', secondary: '+351 000 000 000' },
      useCase: 'API description check',
    });
    const credentials = (await created.clone().json()) as {
      clientId: string;
      clientSecret: string;
    };
    await check('post', '/admin/clients', created);
    const token = await tokenFor(platform.baseUrl, tenant, credentials);

    const configs = '/entities/{entity}/configs';
    const at = (path: string) => path.replace('{entity}', 'store-1');
    await check(
      'post',
      configs,
      await call(token, 'POST', at(configs), { id: 'c1', values: { a: 1 } }),
    );
    await check('get', configs, await call(token, 'GET', at(configs)));
    await check('get', `${configs}/versions`, await call(token, 'GET', at(`${configs}/versions`)));
    const values = '/entities/{entity}/values';
    await check('get', values, await call(token, 'GET', `${at(values)}?complete=true`));
    const connections = '/entities/{entity}/connections';
    await check(
      'post',
      connections,
      await call(token, 'POST', at(connections), { id: 'c1', entityType: 'Config' }),
    );
    await check('get', connections, await call(token, 'GET', at(connections)));
    expect(mismatches).toEqual([]);
  });

  it('describes every request body with a component schema that names its properties', () => {
    expect(emptyReferences(document, (operation) => operation.requestBody)).toEqual([]);
  });

  it('describes every route of every service behind the gateway', async () => {
    const missing: string[] = [];
    let checked = 0;
    for (const route of await platform.serviceRoutes()) {
      const [, method, path] = /^[\w-]+: (\w+) (.+)$/.exec(route) ?? [];
      if (method === 'HEAD' || OPERATIONAL.test(path)) continue;
      checked += 1;
      if (!document.paths[path]?.[method.toLowerCase()]) missing.push(route);
    }
    expect(checked).toBeGreaterThan(40);
    expect(missing).toEqual([]);
    if (platform.deployment) await expectPlatformServing(platform.deployment);
  });
});
