import {
  ForbiddenException,
  type ArgumentMetadata,
  type CanActivate,
  type PipeTransform,
} from '@nestjs/common';
import type { ContextType } from '@nestjs/common/interfaces';
import { FORBIDDEN_MESSAGE } from '@nestjs/core/guards/constants';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { RouterExecutionContext } from '@nestjs/core/router/router-execution-context';
import { isObservable, lastValueFrom } from 'rxjs';
import { isThenable } from './thenable';

/** What Nest hands `createPipesFn` for each parameter of a route handler. */
export interface RouteParam {
  index: number;
  type: number | string;
  data: ArgumentMetadata['data'];
  pipes: PipeTransform[];
  metatype?: ArgumentMetadata['metatype'];
  extractValue: (req: unknown, res: unknown, next: unknown) => unknown;
}

/** The part of Nest's RouterExecutionContext this module replaces and reads. */
export interface RouteStepsFactory {
  createPipesFn(pipes: PipeTransform[], params: RouteParam[]): PipesFn | null;
  createGuardsFn(
    guards: CanActivate[],
    instance: object,
    callback: (...args: unknown[]) => unknown,
    contextType?: ContextType,
  ): GuardsFn | null;
  isPipeable(type: number | string): boolean;
}

type PipesFn = (args: unknown[], req: unknown, res: unknown, next: unknown) => unknown;
type GuardsFn = (args: unknown[]) => unknown;

/** The names Nest's PipesConsumer gives a parameter's kind in the pipe's ArgumentMetadata. */
const PARAM_KINDS = new Map<unknown, ArgumentMetadata['type']>([
  [3, 'body'],
  [4, 'query'],
  [5, 'param'],
]);

let installed = false;

/**
 * Runs a route's guards and pipes without a promise for each step that answers at once.
 *
 * Guards: Nest's `createGuardsFn` is `async` around an `async` consumer, so even guards that
 * answer `true` at once cost promises on every request. Here each guard is called in turn
 * with the same ExecutionContextHost; a boolean is taken at once, and the first promise or
 * Observable is awaited (as Nest's GuardsConsumer does) with the guards after it. A guard
 * that says no fails the request with Nest's own ForbiddenException.
 *
 * Pipes: each parameter is resolved through its pipes without a promise per parameter and pipe.
 *
 * Nest's own `createPipesFn` runs every parameter through `async` functions (the parameter,
 * the pipes consumer, one `reduce` step per pipe, `Promise.all` over the parameters): about
 * eight promises per parameter, even when every pipe answers at once. With the request
 * context's AsyncLocalStorage each promise also runs a promise hook, so a route with four
 * parameters paid more for them than the read it serves (docs/adr/0044).
 *
 * Here each pipe is called in the same order with the same arguments, and a pipe that
 * answers with a value is used at once; the first that answers with a promise (a DTO being
 * validated) is awaited, with the rest of that parameter's pipes after it. A pipe that
 * throws fails the request as before: Nest calls this inside the handler's own `try`.
 *
 * Installed once per process, before any application creates its routes (the method is
 * called per route at `init`); Nest is pinned to an exact version in package.json, and the
 * spec of this file checks the behaviour it relies on.
 */
export function installImmediateRouteSteps(): void {
  if (installed) return;
  installed = true;
  const prototype = RouterExecutionContext.prototype as unknown as RouteStepsFactory;
  prototype.createGuardsFn = function createGuardsFn(guards, instance, callback, contextType) {
    if (guards.length === 0) return null;
    const owner = instance.constructor as ConstructorParameters<typeof ExecutionContextHost>[1];
    return (args) => {
      const context = new ExecutionContextHost(args, owner, callback);
      if (contextType) context.setType(contextType);
      for (let at = 0; at < guards.length; at += 1) {
        const answer = guards[at].canActivate(context);
        if (typeof answer !== 'boolean') return laterGuards(answer, guards.slice(at + 1), context);
        if (!answer) throw new ForbiddenException(FORBIDDEN_MESSAGE);
      }
      return undefined;
    };
  };
  prototype.createPipesFn = function createPipesFn(
    this: RouteStepsFactory,
    pipes: PipeTransform[],
    params: RouteParam[],
  ): PipesFn | null {
    if (params.length === 0) return null;
    const resolved = params.map((param) => ({
      index: param.index,
      extractValue: param.extractValue,
      pipes: this.isPipeable(param.type) ? pipes.concat(param.pipes) : [],
      metatype: param.metatype,
      kind: PARAM_KINDS.get(param.type) ?? 'custom',
      data: param.data,
    }));
    return (args, req, res, next) => {
      let pending: Promise<void>[] | undefined;
      try {
        for (const param of resolved) {
          let value = param.extractValue(req, res, next);
          if (param.pipes.length === 0) {
            args[param.index] = value;
            continue;
          }
          // One per parameter and request, shared by its pipes, as Nest's PipesConsumer does.
          const metadata: ArgumentMetadata = {
            metatype: param.metatype,
            type: param.kind,
            data: param.data,
          };
          let at = 0;
          for (; at < param.pipes.length; at += 1) {
            const result: unknown = param.pipes[at].transform(value, metadata);
            if (isThenable(result)) {
              pending ??= [];
              pending.push(finish(result, param.pipes.slice(at + 1), metadata, args, param.index));
              break;
            }
            value = result;
          }
          if (at === param.pipes.length) args[param.index] = value;
        }
      } catch (error) {
        // The request fails with this error; a parameter still on its way must not fail
        // the process later as an unhandled rejection (Nest's Promise.all handled them).
        pending?.forEach((later) => later.catch(() => undefined));
        throw error;
      }
      return pending && Promise.all(pending);
    };
  };
}

async function finish(
  first: PromiseLike<unknown>,
  rest: PipeTransform[],
  metadata: ArgumentMetadata,
  args: unknown[],
  index: number,
): Promise<void> {
  let value = await first;
  for (const pipe of rest) value = await pipe.transform(value, metadata);
  args[index] = value;
}

/** What a guard answers that is not a boolean: a promise or an Observable of one. */
async function verdict(answer: unknown): Promise<unknown> {
  const value = await answer;
  return isObservable(value) ? lastValueFrom(value) : value;
}

async function laterGuards(
  first: unknown,
  rest: CanActivate[],
  context: ExecutionContextHost,
): Promise<void> {
  if (!(await verdict(first))) throw new ForbiddenException(FORBIDDEN_MESSAGE);
  for (const guard of rest) {
    if (!(await verdict(guard.canActivate(context)))) {
      throw new ForbiddenException(FORBIDDEN_MESSAGE);
    }
  }
}
