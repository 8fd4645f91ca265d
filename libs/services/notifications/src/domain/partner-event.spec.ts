import { parsePartnerEvent } from './partner-event';

const valid = {
  eventId: 'evt-1',
  type: 'capture_failed',
  paymentId: 'pay-1',
  operationId: 'op-1',
  occurredAt: '2026-01-31T12:00:00.123+01:00',
  reason: 'insufficient funds',
};
const parse = (value: unknown) => parsePartnerEvent(Buffer.from(JSON.stringify(value)));

describe('parsePartnerEvent', () => {
  it('reads a contract event and ignores members beyond the contract', () => {
    expect(parse({ ...valid, partnerTrace: 'x' })).toEqual({ ok: true, event: valid });
  });

  it('ignores an extra member holding a number JSON would round (the event is kept as its bytes)', () => {
    const text = `${JSON.stringify(valid).slice(0, -1)},"partnerRef":12345678901234567890}`;
    expect(parsePartnerEvent(Buffer.from(text))).toEqual({ ok: true, event: valid });
  });

  it('accepts an event without reason, and a null reason as none', () => {
    const withoutReason: Partial<typeof valid> = { ...valid };
    delete withoutReason.reason;
    expect(parse(withoutReason)).toEqual({ ok: true, event: withoutReason });
    expect(parse({ ...valid, reason: null })).toEqual({ ok: true, event: withoutReason });
  });

  it('says the JSON is malformed apart from a wrong event', () => {
    expect(parsePartnerEvent(Buffer.from('{"eventId":'))).toMatchObject({
      ok: false,
      malformedJson: true,
    });
    expect(parse([valid])).toMatchObject({ ok: false, malformedJson: false });
  });

  it('says a body that is not UTF-8 is malformed JSON, not an event with a mangled reason', () => {
    const latin1 = Buffer.from(JSON.stringify({ ...valid, reason: 'refus\u00e9' }), 'latin1');
    expect(parsePartnerEvent(latin1)).toMatchObject({ ok: false, malformedJson: true });
  });

  it('refuses an event nested deeper than any JSON body may be, naming where', () => {
    const deep = JSON.stringify(valid).replace(
      /}$/,
      `,"extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    );
    expect(parsePartnerEvent(Buffer.from(deep))).toMatchObject({
      ok: false,
      malformedJson: false,
      errors: [
        {
          path: expect.stringContaining('extra'),
          message: expect.stringMatching(/^must not nest/),
        },
      ],
    });
  });

  it('refuses an event with __proto__ or constructor.prototype members, saying so (it is valid JSON)', () => {
    for (const member of ['"__proto__":{"x":1}', '"constructor":{"prototype":{"x":1}}']) {
      const body = JSON.stringify(valid).replace(/}$/, `,${member}}`);
      expect(parsePartnerEvent(Buffer.from(body))).toEqual({
        ok: false,
        malformedJson: false,
        errors: [{ path: '', message: expect.stringContaining('"__proto__"') }],
      });
    }
  });

  it.each([
    ['eventId', { eventId: '' }],
    ['eventId', { eventId: 'x'.repeat(201) }],
    ['type', { type: 'refund_succeeded' }],
    ['paymentId', { paymentId: 42 }],
    ['operationId', { operationId: undefined }],
    ['occurredAt', { occurredAt: 'yesterday' }],
    ['occurredAt', { occurredAt: '2026-01-31T12:00:00' }],
    ['occurredAt', { occurredAt: '2026-02-31T12:00:00Z' }],
    ['reason', { reason: 7 }],
    ['paymentId', { paymentId: 'pay\u0000' }],
  ])('refuses a wrong %s (%j)', (path, change) => {
    const result = parse({ ...valid, ...change });
    expect(result).toMatchObject({ ok: false, errors: [expect.objectContaining({ path })] });
  });
});
