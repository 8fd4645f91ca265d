import { currentContext, runWithContext } from './request-context';
import { currentService, runInService } from './service-scope';

describe('the service and the request of a piece of work', () => {
  const request = { requestId: 'r-1' };

  it('nest independently: entering one keeps the other, across awaits', async () => {
    const seen = await runInService('orders', () =>
      runWithContext(request, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        const inner = await runInService('payments', async () => {
          await Promise.resolve();
          return [currentService(), currentContext()];
        });
        return [...inner, currentService(), currentContext()];
      }),
    );
    expect(seen).toEqual(['payments', request, 'orders', request]);
  });

  it('a request entered outside any service has none, and a service none of a request', () => {
    expect(runWithContext(request, () => [currentService(), currentContext()])).toEqual([
      undefined,
      request,
    ]);
    expect(runInService('auth', () => [currentService(), currentContext()])).toEqual([
      'auth',
      undefined,
    ]);
    expect([currentService(), currentContext()]).toEqual([undefined, undefined]);
  });

  it('the request is the object entered: what the work sets on it, later reads see', async () => {
    const context: { requestId: string; tenantId?: string } = { requestId: 'r-2' };
    await runWithContext(context, async () => {
      const found = currentContext();
      if (found) found.tenantId = 'tenant-a';
      await Promise.resolve();
      expect(currentContext()?.tenantId).toBe('tenant-a');
    });
    expect(context.tenantId).toBe('tenant-a');
  });
});
