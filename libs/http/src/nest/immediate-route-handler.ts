import type { CanActivate, PipeTransform } from '@nestjs/common';
import { STATIC_CONTEXT } from '@nestjs/core/injector/constants';
import { RouterExecutionContext } from '@nestjs/core/router/router-execution-context';
import { markRejectedByPipes } from '@nestjs/core/router/rejected-by-pipes';
import { isObservable } from 'rxjs';
import { isThenable } from './thenable';
import type { RouteParam, RouteStepsFactory } from './immediate-route-steps';

type Callback = (...args: unknown[]) => unknown;
type RouteHandler = (req: unknown, res: unknown, next: unknown) => unknown;
type HandleResponse = (
  result: unknown,
  res: unknown,
  req: unknown,
  handlerObservable?: unknown,
  handlerFiles?: unknown[],
) => Promise<unknown>;

interface HandlerMetadata {
  argsLength: number;
  fnHandleResponse: HandleResponse;
  paramtypes: unknown[];
  getParamsMetadata: (moduleKey: string, contextId?: unknown, inquirerId?: string) => RouteParam[];
  httpStatusCode: number;
  responseHeaders: unknown[];
  hasCustomHeaders: boolean;
}

interface ContextCreator<T> {
  create(
    instance: object,
    callback: Callback,
    moduleKey: string,
    contextId?: unknown,
    inquirerId?: string,
  ): T[];
}

/** The parts of Nest's RouterExecutionContext (pinned version) this module reads or replaces. */
interface RouteHandlerFactory extends RouteStepsFactory {
  create(
    instance: object,
    callback: Callback,
    methodName: string,
    moduleKey: string,
    requestMethod: unknown,
    contextId?: unknown,
    inquirerId?: string,
  ): RouteHandler;
  getMetadata(
    instance: object,
    callback: Callback,
    methodName: string,
    moduleKey: string,
    requestMethod: unknown,
    contextType: 'http',
  ): HandlerMetadata;
  isResponseHandled(instance: object, methodName: string, paramsMetadata: RouteParam[]): boolean;
  reflectRedirect(callback: Callback): { url?: unknown } | undefined;
  reflectRenderTemplate(callback: Callback): unknown;
  reflectSse(callback: Callback): unknown;
  guardsContextCreator: ContextCreator<CanActivate>;
  pipesContextCreator: ContextCreator<PipeTransform>;
  interceptorsContextCreator: ContextCreator<unknown>;
  contextUtils: {
    createNullArray(length: number): unknown[];
    mergeParamsMetatypes(params: RouteParam[], paramtypes: unknown[]): RouteParam[];
  };
  responseController: {
    setStatus(res: unknown, statusCode: number): void;
    setHeaders(res: unknown, headers: unknown[]): void;
  };
  applicationRef: { reply(res: unknown, body: unknown, statusCode?: number): unknown };
}

let installed = false;

/**
 * A route handler of the most common kind without a promise for each step that answers at
 * once (docs/adr/0047).
 *
 * Nest wraps every handler in `async` functions: the handler itself, the interceptors
 * consumer (also when there are none), the response handler, the result's transformation
 * and the reply: about 14 promises on every request, each with the request context's
 * AsyncLocalStorage hook on Node 20. For a route with no interceptor that answers with a
 * value, a promise of one, or a response it wrote itself (`@Res()`), this handler does the
 * same steps in the same order (guards, status and `@Header`s, pipes, the handler, the
 * reply) and awaits only what is pending. It hands back what Nest's does: the Fastify reply
 * (a thenable that settles when the answer is sent), which Nest's RouterProxy awaits, so an
 * error on the way still reaches the exception filters.
 *
 * Routes with interceptors, SSE, `@Render` or `@Redirect`, request-scoped controllers, and a
 * handler that answers with an Observable keep Nest's own path. Installed once per process
 * with the guards and pipes of ADR 0044; Nest is pinned to an exact version, and this file's
 * spec checks what it relies on.
 */
export function installImmediateRouteHandler(): void {
  if (installed) return;
  installed = true;
  const prototype = RouterExecutionContext.prototype as unknown as RouteHandlerFactory;
  const nestCreate = prototype.create;
  prototype.create = function create(
    this: RouteHandlerFactory,
    instance,
    callback,
    methodName,
    moduleKey,
    requestMethod,
    contextId = STATIC_CONTEXT,
    inquirerId,
  ) {
    const nest = nestCreate.call(
      this,
      instance,
      callback,
      methodName,
      moduleKey,
      requestMethod,
      contextId,
      inquirerId,
    );
    if (contextId !== STATIC_CONTEXT || !isPlainRoute(this, callback)) return nest;
    if (
      this.interceptorsContextCreator.create(instance, callback, moduleKey, contextId, inquirerId)
        .length > 0
    ) {
      return nest;
    }
    const metadata = this.getMetadata(
      instance,
      callback,
      methodName,
      moduleKey,
      requestMethod,
      'http',
    );
    const paramsMetadata = metadata.getParamsMetadata(moduleKey, contextId, inquirerId);
    const params = this.contextUtils.mergeParamsMetatypes(paramsMetadata, metadata.paramtypes);
    const canActivate = this.createGuardsFn(
      this.guardsContextCreator.create(instance, callback, moduleKey, contextId, inquirerId),
      instance,
      callback,
      'http',
    );
    const applyPipes = this.createPipesFn(
      this.pipesContextCreator.create(instance, callback, moduleKey, contextId, inquirerId),
      params,
    );
    const responseHandled = this.isResponseHandled(instance, methodName, paramsMetadata);
    const { argsLength, fnHandleResponse, httpStatusCode, hasCustomHeaders, responseHeaders } =
      metadata;
    const { responseController, applicationRef } = this;

    const respond = (value: unknown, req: unknown, res: unknown): unknown => {
      if (isObservable(value)) return fnHandleResponse(value, res, req, undefined, []);
      return responseHandled ? res : applicationRef.reply(res, value, undefined);
    };
    const run = (args: unknown[], req: unknown, res: unknown): unknown => {
      const result = callback.apply(instance, args);
      // `Promise.resolve`: a thenable need not return a promise from `then` (a Fastify reply
      // a handler returns does not); a native promise is taken as it is.
      return isThenable(result)
        ? Promise.resolve(result).then((value) => respond(value, req, res))
        : respond(result, req, res);
    };
    const afterGuards = (args: unknown[], req: unknown, res: unknown, next: unknown): unknown => {
      responseController.setStatus(res, httpStatusCode);
      if (hasCustomHeaders) responseController.setHeaders(res, responseHeaders);
      let piped: unknown;
      try {
        piped = applyPipes?.(args, req, res, next);
      } catch (error) {
        markRejectedByPipes(req);
        throw error;
      }
      if (!isThenable(piped)) return run(args, req, res);
      return Promise.resolve(piped).then(
        () => run(args, req, res),
        (error: unknown) => {
          markRejectedByPipes(req);
          throw error;
        },
      );
    };
    return (req, res, next) => {
      const args = this.contextUtils.createNullArray(argsLength);
      const guarded = canActivate?.([req, res, next]);
      return isThenable(guarded)
        ? Promise.resolve(guarded).then(() => afterGuards(args, req, res, next))
        : afterGuards(args, req, res, next);
    };
  };
}

/** Not SSE, `@Render` or `@Redirect`: those answer through Nest's own response handlers. */
function isPlainRoute(factory: RouteHandlerFactory, callback: Callback): boolean {
  const redirect = factory.reflectRedirect(callback);
  return (
    !factory.reflectSse(callback) &&
    !factory.reflectRenderTemplate(callback) &&
    !(redirect && typeof redirect.url === 'string')
  );
}
