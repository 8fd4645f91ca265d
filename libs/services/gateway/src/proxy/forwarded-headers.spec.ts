import { endToEndHeaders, upstreamRequestHeaders } from './forwarded-headers';

describe('forwarded headers', () => {
  it('drops hop-by-hop headers and those the Connection header names, whatever their case', () => {
    expect(
      endToEndHeaders({
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
        'content-type': 'application/json',
        'x-custom': 'kept',
      }),
    ).toEqual({ 'content-type': 'application/json', 'x-custom': 'kept' });
    expect(
      endToEndHeaders({
        connection: 'close, X-Secret-Hop',
        'x-secret-hop': 'dropped',
        close: 'dropped too',
        accept: 'application/json',
      }),
    ).toEqual({ accept: 'application/json' });
    expect(
      endToEndHeaders({
        connection: ['Keep-Alive', 'x-a ,x-b'],
        'x-a': '1',
        'x-b': '2',
        'x-c': '3',
      }),
    ).toEqual({ 'x-c': '3' });
  });

  it('appends the caller to X-Forwarded-For after the hops before it', () => {
    const facts = {
      requestId: 'req-1',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      clientIp: '198.51.100.7',
      protocol: 'https',
    };
    expect(upstreamRequestHeaders({ host: 'api.example' }, facts)).toMatchObject({
      'x-forwarded-for': '198.51.100.7',
      'x-forwarded-host': 'api.example',
      'x-forwarded-proto': 'https',
      'x-request-id': 'req-1',
      traceparent: facts.traceparent,
    });
    expect(
      upstreamRequestHeaders({ 'x-forwarded-for': ' 203.0.113.1 , 203.0.113.2' }, facts)[
        'x-forwarded-for'
      ],
    ).toBe('203.0.113.1, 203.0.113.2, 198.51.100.7');
    expect(
      upstreamRequestHeaders({ 'x-forwarded-for': '203.0.113.9 ' }, facts)['x-forwarded-for'],
    ).toBe('203.0.113.9, 198.51.100.7');
    expect(upstreamRequestHeaders({ 'x-forwarded-for': '' }, facts)['x-forwarded-for']).toBe(
      '198.51.100.7',
    );
  });
});
