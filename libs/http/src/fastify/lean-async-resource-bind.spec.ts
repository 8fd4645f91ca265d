import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import fastify from 'fastify';
import { installLeanAsyncResourceBind } from './lean-async-resource-bind';

const storage = new AsyncLocalStorage<string>();

describe('AsyncResource#bind without the deprecated property', () => {
  beforeAll(() => installLeanAsyncResourceBind());

  it('runs the bound function in the async context the resource was made in', async () => {
    const bound = storage.run('at bind', () =>
      new AsyncResource('test').bind(() => storage.getStore()),
    );
    const seen = await storage.run('at call', () => Promise.resolve().then(bound));
    expect(seen).toBe('at bind');
  });

  it("passes the caller's `this` and every argument, or the `thisArg` given", () => {
    const resource = new AsyncResource('test');
    function describe(this: unknown, ...args: unknown[]) {
      return { self: this, args };
    }
    const target = { name: 'target', run: resource.bind(describe) };
    expect(target.run(1, 'two')).toEqual({ self: target, args: [1, 'two'] });
    const given = { name: 'given' };
    // `thisArg` is documented (Node 20's async_context.md) but not in @types/node.
    const boundToGiven = Reflect.apply(resource.bind, resource, [
      describe,
      given,
    ]) as typeof describe;
    expect(boundToGiven.call(target, 3)).toEqual({ self: given, args: [3] });
  });

  it("has the function's length and no deprecated asyncResource property", () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => warnings.push(String(warning.code));
    process.on('warning', onWarning);
    try {
      const bound = AsyncResource.bind((a: number, b: number) => a + b);
      expect(bound.length).toBe(2);
      expect(bound(2, 3)).toBe(5);
      expect('asyncResource' in bound).toBe(false);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('DEP0172');
  });

  it('refuses what is not a function with Node’s own error', () => {
    expect(() => new AsyncResource('test').bind('not a function' as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
  });

  it("keeps a request's context across Fastify's body parsing (it binds one function per body)", async () => {
    const app = fastify();
    app.addHook('onRequest', (request, _reply, done) => storage.run(`request ${request.id}`, done));
    app.post('/echo', (request) => ({ context: storage.getStore(), body: request.body }));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const answers = await Promise.all(
        [1, 2, 3].map((n) =>
          fetch(`${url}/echo`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ n }),
          }).then((answer) => answer.json() as Promise<{ context?: string; body: unknown }>),
        ),
      );
      expect(answers.map((answer) => answer.body)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      for (const answer of answers) expect(answer.context).toMatch(/^request req-\d+$/);
      expect(new Set(answers.map((answer) => answer.context)).size).toBe(3);
    } finally {
      await app.close();
    }
  });
});
