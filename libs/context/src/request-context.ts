import { scopes } from './scope';

/**
 * What follows a unit of work (an HTTP request, a consumed message, a fired timer) through
 * async calls: logs carry the request id, the outbox copies it and the trace context
 * into the headers of every event the work publishes.
 */
export interface RequestContext {
  requestId: string;
  traceparent?: string;
  tracestate?: string;
  tenantId?: string;
}

export function runWithContext<T>(context: RequestContext, work: () => T): T {
  return scopes.run({ service: scopes.getStore()?.service, request: context }, work);
}

export function currentContext(): RequestContext | undefined {
  return scopes.getStore()?.request;
}
