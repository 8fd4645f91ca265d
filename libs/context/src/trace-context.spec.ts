import { currentContext, runWithContext } from './request-context';
import { childTraceparent, parseTraceparent } from './trace-context';

describe('trace context', () => {
  const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it('continues the caller trace with a new span id', () => {
    const child = childTraceparent(incoming);
    expect(parseTraceparent(child)).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      flags: '01',
    });
    expect(child).not.toBe(incoming);
  });

  it('starts a new trace when the header is malformed or all zeros', () => {
    expect(parseTraceparent('garbage')).toBeUndefined();
    expect(
      parseTraceparent('00-00000000000000000000000000000000-00f067aa0ba902b7-01'),
    ).toBeUndefined();
    expect(parseTraceparent(childTraceparent('garbage'))).toBeDefined();
  });

  it('keeps the request context across awaits', async () => {
    const seen = await runWithContext({ requestId: 'req-1' }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return currentContext()?.requestId;
    });
    expect(seen).toBe('req-1');
    expect(currentContext()).toBeUndefined();
  });
});
