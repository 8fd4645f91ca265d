import { readJsonObject } from './operation-request';

describe('an operation request body (rule 7, first half)', () => {
  it('reads a JSON object', () => {
    expect(readJsonObject(Buffer.from('{"operationType":"capture"}'))).toEqual({
      ok: true,
      body: { operationType: 'capture' },
    });
  });

  it('is malformed when it is not JSON, or its bytes are not UTF-8', () => {
    expect(readJsonObject(Buffer.from('{"operationType":'))).toBeUndefined();
    const latin1 = Buffer.from('{"paymentMethod":"carte bancaire \u00e9"}', 'latin1');
    expect(readJsonObject(latin1)).toBeUndefined();
  });
});
