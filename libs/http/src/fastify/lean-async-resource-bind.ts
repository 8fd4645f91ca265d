import { AsyncResource } from 'node:async_hooks';

type Bind = AsyncResource['bind'];

const nativeBind: Bind = AsyncResource.prototype.bind;
let installed = false;

/**
 * `AsyncResource#bind` without the deprecated `asyncResource` property (DEP0172).
 *
 * On Node 20, our runtime, `bind` attaches that property to every function it returns
 * through two `deprecate()` wrappers and `Object.defineProperties`: 14 µs per call in a loop
 * on this project's machine, against under 1 µs without them. Fastify binds one function per
 * request body (`ContentTypeParser.run`), and Nest one per intercepted call
 * (`AsyncResource.bind`, which goes through the same method), so every POST, PUT and PATCH of
 * every service paid it: 4.6 % of the token endpoint's busy time (docs/adr/0046).
 *
 * The function returned here does what Node's does: it runs `fn` in the resource's async
 * scope, with the caller's `this` (or `thisArg` when one is given), and has `fn`'s
 * `length`. Only the deprecated property is left out; no package this project installs reads
 * it. A runtime whose `bind` attaches no such property keeps its own method.
 */
export function installLeanAsyncResourceBind(): void {
  if (installed) return;
  installed = true;
  if (!('asyncResource' in nativeBind.call(new AsyncResource('comanda-probe'), () => undefined)))
    return;
  AsyncResource.prototype.bind = function bind(
    this: AsyncResource,
    fn: Callback,
    thisArg?: unknown,
  ): Callback {
    // What Node refuses (not a function), it refuses with its own error.
    if (typeof fn !== 'function') return Reflect.apply(nativeBind, this, [fn, thisArg]) as Callback;
    const bound =
      thisArg === undefined ? inScopeOf(this, fn) : this.runInAsyncScope.bind(this, fn, thisArg);
    Object.defineProperty(bound, 'length', {
      configurable: true,
      enumerable: false,
      value: fn.length,
      writable: false,
    });
    return bound;
  } as Bind;
}

type Callback = (this: unknown, ...args: unknown[]) => unknown;

/** `fn` run in `resource`'s async scope with the caller's `this`, as Node's `bind` does. */
function inScopeOf(resource: AsyncResource, fn: Callback): Callback {
  return function (this: unknown, ...args: unknown[]) {
    return resource.runInAsyncScope(fn, this, ...args);
  };
}
