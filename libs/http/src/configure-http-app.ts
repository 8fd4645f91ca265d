import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { installApiVersionCheck } from './api-version/api-version.hook';
import type { ServiceLogger } from './logging/logging.module';
import { installRequestLogging } from './logging/request-logging';
import { trackRoutes } from './routing/allowed-methods';
import type { DomainProblems } from './problem/exception-to-problem';
import { ProblemDetailsFilter } from './problem/problem-details.filter';
import { createValidationPipe } from './validation/create-validation-pipe';
import { installImmediateRouteHandler } from './nest/immediate-route-handler';
import { installImmediateRouteSteps } from './nest/immediate-route-steps';

export interface HttpAppOptions {
  serviceName: string;
  /** Path prefixes that need no `X-Api-Version` (`/health/` always is exempt). */
  versionExemptPaths?: string[];
  /** The service's logger (`loggingModule()`): one line per request goes to it. */
  logger?: ServiceLogger;
  /** The service's own errors as problems (an exception filter's work, without one per route). */
  domainProblems?: DomainProblems;
}

/**
 * Installs the HTTP kit on an app created with `createFastifyAdapter()`: problem+json for
 * every error, validation and the API version check (request ids and the request context
 * come with the adapter).
 * Logs go through Nest's logger: `app.useLogger(app.get(ServiceLogger))` with `loggingModule()`,
 * and the same logger in `options.logger` for the request lines. Call it before `app.init()` / `app.listen()`: Fastify hooks only apply to routes
 * registered after them, and Nest registers its routes at init.
 */
export function configureHttpApp(app: NestFastifyApplication, options: HttpAppOptions): void {
  const fastify = app.getHttpAdapter().getInstance();
  installApiVersionCheck(fastify, options.versionExemptPaths ?? []);
  trackRoutes(fastify);
  if (options.logger) installRequestLogging(fastify, options.logger);
  app.useGlobalFilters(new ProblemDetailsFilter(options.serviceName, options.domainProblems));
  app.useGlobalPipes(createValidationPipe());
  installImmediateRouteSteps();
  installImmediateRouteHandler();
}
