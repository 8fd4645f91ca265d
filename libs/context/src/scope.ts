import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestContext } from './request-context';

/** What a piece of work carries through its async calls: its service and its request. */
export interface Scope {
  service?: string;
  request?: RequestContext;
}

/**
 * The one AsyncLocalStorage of the process. On Node 20 every storage adds its own step to
 * every promise and async resource made while any is in use (the promise hook copies each
 * storage's value onto the new promise); two storages (the service, the request) made every
 * promise of a request pay twice (issue 10). The service and the request nest independently,
 * as with two storages: entering one keeps the other as it is.
 */
export const scopes = new AsyncLocalStorage<Scope>();
