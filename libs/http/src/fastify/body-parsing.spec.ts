import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { call } from '../testing-fixtures/http-client';
import { startKitTestApp } from '../testing-fixtures/kit-test.app';

describe('request bodies', () => {
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startKitTestApp({
      bodyLimitBytes: 64 * 1024,
      rawContentTypes: ['application/javascript'],
    }));
  });
  afterAll(() => app.close());

  it('refuses a text/plain body with 415 where the service did not ask for it, as the gateway does', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: '{"name":"x"}',
    });
    expect(response.status).toBe(415);
    expect(response.json()).toMatchObject({ code: 'request.unsupported_media_type' });
  });

  it('refuses a Content-Type header that is no media type with a 415 problem', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'foo' },
      body: '{"name":"x"}',
    });
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'request.unsupported_media_type' });
  });

  it('refuses a JSON body that is not UTF-8 as malformed, not as a wrong Content-Length', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from([...Buffer.from('{"name":"'), 0xff, 0xfe, ...Buffer.from('"}')]),
    });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ code: 'request.malformed_json' });
  });

  it('hands a JSON body it cannot parse to a route that takes refused bodies, as the problem it would have answered', async () => {
    const post = async (body: string | Buffer) => {
      const response = await call(`${url}/judged`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return [response.status, response.json()];
    };
    expect(await post('{"name": ')).toEqual([
      201,
      { refused: true, status: 400, code: 'request.malformed_json' },
    ]);
    expect(await post('')).toEqual([
      201,
      { refused: true, status: 400, code: 'request.malformed_json' },
    ]);
    expect(await post('['.repeat(200) + ']'.repeat(200))).toEqual([
      201,
      { refused: true, status: 400, code: 'request.invalid' },
    ]);
    expect(await post(Buffer.from([0x22, 0xff, 0x22]))).toEqual([
      201,
      { refused: true, status: 400, code: 'request.malformed_json' },
    ]);
    expect(await post('{"name":"x"}')).toEqual([201, { refused: false, body: { name: 'x' } }]);
    // Every other route answers the refusal before its handler, as before.
    const text = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect([text.status, text.json()]).toEqual([
      400,
      expect.objectContaining({ code: 'request.malformed_json' }),
    ]);
  });

  it('refuses a body sent with a content coding with 415 and Accept-Encoding, before any route judges it', async () => {
    const coded = async (path: string, contentType: string, contentEncoding: string) => {
      const response = await call(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': contentType, 'content-encoding': contentEncoding },
        body: '{"name":"x"}',
      });
      return [response.status, response.headers.get('accept-encoding'), response.json()];
    };
    const refused = [
      415,
      'identity',
      expect.objectContaining({
        code: 'request.unsupported_media_type',
        detail: expect.stringContaining('without Content-Encoding'),
      }),
    ];
    // A plain body labelled compressed is refused too: its label is not what it is.
    expect(await coded('/text', 'application/json', 'gzip')).toEqual(refused);
    expect(await coded('/text', 'application/json', 'identity, br')).toEqual(refused);
    expect(await coded('/judged', 'application/json', 'gzip')).toEqual(refused);
    expect(await coded('/text', 'application/javascript', 'deflate')).toEqual(refused);
    // No coding at all is what every body is taken with.
    expect(await coded('/judged', 'application/json', 'identity')).toEqual([
      201,
      null,
      { refused: false, body: { name: 'x' } },
    ]);
  });

  it('hands a text/plain body to the handler as a string where the service takes it', async () => {
    const plain = await startKitTestApp({ rawContentTypes: ['text/plain'] });
    try {
      const response = await call(`${plain.url}/text`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: 'export default () => "olá";',
      });
      expect(response.status).toBe(201);
      expect(response.json()).toEqual({ type: 'string', body: 'export default () => "olá";' });
    } finally {
      await plain.app.close();
    }
  });

  it('refuses a text body that is not UTF-8, saying so', async () => {
    const plain = await startKitTestApp({ rawContentTypes: ['text/plain'] });
    try {
      const response = await call(`${plain.url}/text`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: Buffer.from([0x63, 0x61, 0x66, 0xe9]), // "café" in Latin-1
      });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'request.invalid_encoding',
        detail: 'The request body is not valid UTF-8.',
      });
    } finally {
      await plain.app.close();
    }
  });

  it('hands a body of a configured raw content type to the handler as a string', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/javascript' },
      body: 'console.log(1)',
    });
    expect(response.json()).toEqual({ type: 'string', body: 'console.log(1)' });
  });

  it('applies the body limit to raw bodies too', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/javascript' },
      body: 'x'.repeat(64 * 1024 + 1),
    });
    expect(response.status).toBe(413);
    expect(response.json()).toMatchObject({ code: 'request.too_large' });
  });

  it('accepts a JSON body just under the limit', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ filler: 'x'.repeat(60 * 1024) }),
    });
    expect(response.status).toBe(201);
  });

  it('parses form-encoded bodies (OAuth token requests)', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=orders%3Aread',
    });
    expect(response.json()).toEqual({
      type: 'object',
      body: { grant_type: 'client_credentials', scope: 'orders:read' },
    });
  });

  const postJsonText = (body: string) =>
    call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  it.each([
    ['nested 10,000 deep', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['an object nested 65 deep', '{"a":'.repeat(65) + '1' + '}'.repeat(65)],
    ['an array of 10,001 items', JSON.stringify(Array.from({ length: 10_001 }, () => 0))],
    [
      'an object of 1,001 members',
      JSON.stringify(Object.fromEntries(Array.from({ length: 1001 }, (_v, i) => [`k${i}`, 0]))),
    ],
  ])(
    'refuses a JSON body %s with 400 request.invalid, naming where, before validation',
    async (_case, body) => {
      const response = await postJsonText(body);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'request.invalid',
        errors: [{ path: expect.any(String), message: expect.stringMatching(/^must not /) }],
      });
    },
  );

  it('refuses a body with a __proto__ or constructor.prototype member, saying why', async () => {
    for (const text of [
      '{"a":1,"__proto__":{"polluted":true}}',
      '{"a":{"constructor":{"prototype":{"polluted":true}}}}',
    ]) {
      const response = await postJsonText(text);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: 'request.forbidden_member',
        detail: expect.stringContaining('__proto__'),
      });
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const malformed = await postJsonText('{"a":');
    expect(await malformed.json()).toMatchObject({ code: 'request.malformed_json' });
  });

  it('refuses a member named like an object internal instead of dropping it silently', async () => {
    for (const [text, name, path] of [
      [
        '{"mappingDetails":{"posId":"1","constructor":"C"}}',
        'constructor',
        'mappingDetails.constructor',
      ],
      ['{"a":[{"toString":"t"}]}', 'toString', 'a[0].toString'],
      ['{"valueOf":1}', 'valueOf', 'valueOf'],
      ['{"a":{"prototype":{}}}', 'prototype', 'a.prototype'],
      ['{"a":{"hasOwnProperty":"x"}}', 'hasOwnProperty', 'a.hasOwnProperty'],
    ]) {
      const response = await postJsonText(text);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'request.forbidden_member',
        detail: expect.stringContaining(`"${name}" (at ${path})`),
      });
    }
    const similar = await postJsonText('{"Constructor":"C","toStringTag":"t","a":{"proto":1}}');
    expect(similar.status).toBe(201);
  });

  it('refuses a number too large for a double instead of keeping it as null', async () => {
    for (const text of ['{"values":{"x":1e400}}', '[1, -2e308]']) {
      const response = await postJsonText(text);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'request.invalid',
        errors: [
          { path: expect.stringMatching(/^values\.x$|^\[1\]$/), message: expect.any(String) },
        ],
      });
    }
    expect((await postJsonText('{"x":1.7976931348623157e308}')).status).toBe(201);
  });

  it('refuses a number JSON cannot keep as written instead of storing another one', async () => {
    for (const [text, path, readAs] of [
      [
        '{"extensions":{"ticket":12345678901234567890}}',
        'extensions.ticket',
        '12345678901234567000',
      ],
      ['[1, -9007199254740993]', '[1]', '-9007199254740992'],
      ['{"a":[18446744073709551615]}', 'a[0]', '18446744073709552000'],
      ['{"x":1.00000000000000000001e20}', 'x', '100000000000000000000'],
      // Small numbers too: more digits than a double holds, or below its smallest.
      ['{"x":1.00000000000000000001}', 'x', '1'],
      ['{"pi":3.14159265358979323846}', 'pi', '3.141592653589793'],
      ['{"x":[0.5,12345678.123456789]}', 'x[1]', '12345678.12345679'],
      ['{"x":1e-400}', 'x', '0'],
      ['{"x":2.5e-324}', 'x', '5e-324'],
      // Named where the literal stands, not where an equal number does.
      ['{"values":{"ratio":1.00000000000000000001,"price":1,"qty":2}}', 'values.ratio', '1'],
      ['{"a":[0,{"b":"1e-400","2":1e-400}]}', 'a[1].2', '0'],
    ]) {
      const response = await postJsonText(text);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'request.invalid',
        errors: [{ path, message: expect.stringContaining(`it would read as ${readAs}`) }],
      });
    }
    // Kept as written: integers below 2^53, large numbers written back as the same decimal,
    // and digits inside strings.
    for (const text of [
      '{"x":9007199254740991,"y":-9007199254740991}',
      '{"x":1e20,"y":1E2,"z":100000000000000000000.000,"w":-2e300,"v":1.5e20}',
      '{"id":"12345678901234567890","note":"\\" 99999999999999999999"}',
      '{"x":0.1,"y":3.14159}',
      '{"x":-0,"y":0.0,"z":0e-400,"w":1.50,"v":0.30000000000000004,"u":5e-324,"t":1E-7}',
      '{"x":123456789012345,"y":1234567.12345678,"z":0.000000000000001}',
    ]) {
      expect({ text, status: (await postJsonText(text)).status }).toEqual({ text, status: 201 });
    }
  });

  it('accepts a JSON body nested 64 deep', async () => {
    const response = await postJsonText('{"a":'.repeat(63) + '1' + '}'.repeat(63));
    expect(response.status).toBe(201);
  });
});
