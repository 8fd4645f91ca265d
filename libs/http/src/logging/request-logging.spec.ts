import fc from 'fast-check';
import type { IncomingHttpHeaders } from 'node:http';
import { isSecretName } from './redact-url';
import { redactedHeadersJson } from './request-logging';

describe('redactedHeadersJson', () => {
  // Header values as Node hands them over: strings (any text, quotes, backslashes, control
  // characters and lone surrogates included), arrays for the repeatable ones, undefined.
  const value = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.array(fc.string({ unit: 'binary' }), { maxLength: 3 }),
    fc.constant(undefined),
  );
  const name = fc.oneof(
    fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
    fc.constantFrom('authorization', 'cookie', 'set-cookie', 'proxy-authorization', 'x-api-key'),
  );

  it('is the JSON of the headers, undefined ones left out, credentials redacted', () => {
    fc.assert(
      fc.property(fc.dictionary(name, value), (headers) => {
        const expected: Record<string, unknown> = {};
        for (const [key, v] of Object.entries(headers)) {
          if (v === undefined) continue;
          const secret =
            isSecretName(key) || ['cookie', 'set-cookie', 'proxy-authorization'].includes(key);
          expected[key] = secret ? '[redacted]' : v;
        }
        const text = redactedHeadersJson(headers as IncomingHttpHeaders);
        expect(JSON.parse(text)).toEqual(expected);
        // Exactly what JSON.stringify writes, so the line is well-formed JSON text.
        expect(text).toBe(JSON.stringify(expected));
      }),
    );
  });
});
