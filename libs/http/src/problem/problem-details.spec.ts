import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { call, postJson, type TestResponse } from '../testing-fixtures/http-client';
import { startKitTestApp } from '../testing-fixtures/kit-test.app';

function expectProblem(response: TestResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  const body = response.json();
  expect(body).toMatchObject({
    type: `https://comanda.dev/problems/${code}`,
    status,
    code,
    requestId: response.headers.get('x-request-id'),
  });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body;
}

describe('problem+json error responses', () => {
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startKitTestApp({ bodyLimitBytes: 1024 }));
  });
  afterAll(() => app.close());

  it("answers a problem thrown from Nest middleware, where the response is still Node's own", async () => {
    const response = await call(`${url}/orders`, { headers: { 'x-fail-in-middleware': '1' } });
    const body = expectProblem(response, 403, 'test.refused_in_middleware');
    expect(body.requestId).toBe(response.headers.get('x-request-id'));
  });

  it('lists every invalid property with its path, nested and in arrays', async () => {
    const response = await postJson(`${url}/orders`, {
      customer: { name: 42 },
      lines: [
        { sku: 'pizza', quantity: 1, modifiers: [] },
        { sku: 'cola', quantity: 0, modifiers: [{ name: 'ice' }, { name: 7 }] },
      ],
    });
    const body = expectProblem(response, 400, 'request.invalid');
    const paths = (body.errors as Array<{ path: string; message: string }>).map(
      (error) => error.path,
    );
    expect(paths.sort()).toEqual([
      'customer.name',
      'lines[1].modifiers[1].name',
      'lines[1].quantity',
    ]);
    for (const error of body.errors as Array<{ message: string }>)
      expect(error.message).toEqual(expect.any(String));
  });

  it('rejects properties the DTO does not declare, at any depth', async () => {
    const response = await postJson(`${url}/orders`, {
      customer: { name: 'Ana', vip: true },
      lines: [{ sku: 'pizza', quantity: 1, price: 0 }],
      discount: 100,
    });
    const body = expectProblem(response, 400, 'request.invalid');
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { path: 'discount', message: 'property discount should not exist' },
        { path: 'customer.vip', message: 'property vip should not exist' },
        { path: 'lines[0].price', message: 'property price should not exist' },
      ]),
    );
    expect(body.errors).toHaveLength(3);
  });

  it('hands the handler a DTO instance when the body is valid', async () => {
    const response = await postJson(`${url}/orders`, {
      customer: { name: 'Ana' },
      lines: [{ sku: 'pizza', quantity: 2 }],
    });
    expect(response.status).toBe(201);
    expect(response.json()).toEqual({ lines: 1, isDto: true });
  });

  it('answers 404 route.not_found for an unknown route', async () => {
    const body = expectProblem(await call(`${url}/nowhere?x=1`), 404, 'route.not_found');
    expect(body.detail).toBe('No route matches GET /nowhere.');
  });

  it('answers 405 with Allow for a known path asked with a method it lacks', async () => {
    const response = await call(`${url}/kitchen`, { method: 'DELETE' });
    expectProblem(response, 405, 'request.method_not_allowed');
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers 405 for a path with parameters as well, and 404 for a path nobody serves', async () => {
    expectProblem(
      await call(`${url}/orders`, { method: 'PUT' }),
      405,
      'request.method_not_allowed',
    );
    expectProblem(await call(`${url}/nowhere`, { method: 'PUT' }), 404, 'route.not_found');
  });

  it('answers 404, as Nest does, for a path whose route parameter is empty', async () => {
    expect((await call(`${url}/tables/7/bill`)).status).toBe(200);
    expectProblem(
      await call(`${url}/tables/7/bill`, { method: 'PUT' }),
      405,
      'request.method_not_allowed',
    );
    for (const method of ['GET', 'PUT']) {
      const response = await call(`${url}/tables//bill`, { method });
      expectProblem(response, 404, 'route.not_found');
      expect(response.headers.get('allow')).toBeNull();
    }
  });

  it('answers 404, as the router does, for a known path spelled with a trailing or double slash', async () => {
    for (const path of ['/kitchen/', '//kitchen']) {
      const response = await call(`${url}${path}`, { method: 'DELETE' });
      expectProblem(response, 404, 'route.not_found');
      expect(response.headers.get('allow')).toBeNull();
    }
    expectProblem(await call(`${url}/kitchen/`), 404, 'route.not_found');
  });

  it('tells a missing resource (resource.not_found) from an unknown route', async () => {
    const body = expectProblem(await call(`${url}/orders/missing`), 404, 'resource.not_found');
    expect(body.detail).toBe('Order 123 does not exist.');
  });

  it('gives Nest exceptions a code from their status', async () => {
    expectProblem(await call(`${url}/private`), 401, 'auth.unauthorized');
  });

  it('answers 500 internal for an unexpected error without its message or stack', async () => {
    const response = await call(`${url}/boom`);
    const body = expectProblem(response, 500, 'internal');
    expect(response.text).not.toContain('secret detail');
    expect(response.text).not.toMatch(/at .*\.ts:\d+/);
    expect(Object.keys(body).sort()).toEqual([
      'code',
      'detail',
      'requestId',
      'status',
      'title',
      'type',
    ]);
  });

  it('hides the message of a Nest 5xx exception as well', async () => {
    const response = await call(`${url}/database-down`);
    expectProblem(response, 503, 'service.unavailable');
    expect(response.text).not.toContain('10.0.0.7');
  });

  it('maps a ProblemError subclass to its status, code, detail and headers', async () => {
    const response = await call(`${url}/kitchen`);
    const body = expectProblem(response, 503, 'kitchen.closed');
    expect(body).toMatchObject({
      title: 'Kitchen closed',
      detail: 'The kitchen takes orders again at 18:00.',
    });
    expect(response.headers.get('retry-after')).toBe('120');
  });

  it("maps a service's own error through its domainProblems, and leaves other errors to the kit", async () => {
    const response = await call(`${url}/oven`);
    const body = expectProblem(response, 409, 'oven.busy');
    expect(body).toMatchObject({ title: 'Oven busy', detail: 'Oven left is busy.' });
    // /boom throws a plain Error, which the service's mapping does not own: still a 500.
    expectProblem(await call(`${url}/boom`), 500, 'internal');
  });

  it('answers 413 request.too_large for a body over the limit', async () => {
    const response = await postJson(`${url}/orders`, {
      customer: { name: 'x'.repeat(2000) },
      lines: [],
    });
    expectProblem(response, 413, 'request.too_large');
  });

  it('answers 400 request.malformed_json for a body that is not JSON', async () => {
    const response = await call(`${url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"customer": ',
    });
    expectProblem(response, 400, 'request.malformed_json');
  });

  it('answers 400 request.malformed_json for an empty JSON body', async () => {
    const response = await call(`${url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    expectProblem(response, 400, 'request.malformed_json');
  });

  it('answers 415 request.unsupported_media_type for a content type without a parser', async () => {
    const response = await call(`${url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<order/>',
    });
    expectProblem(response, 415, 'request.unsupported_media_type');
  });
});
