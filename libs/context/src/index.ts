export { currentContext, runWithContext } from './request-context';
export type { RequestContext } from './request-context';
export { childTraceparent, parseTraceparent } from './trace-context';
export { currentService, runInService } from './service-scope';
