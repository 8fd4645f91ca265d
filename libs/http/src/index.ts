export { createFastifyAdapter, DEFAULT_BODY_LIMIT_BYTES } from './fastify/create-fastify-adapter';
export type { FastifyAdapterOptions } from './fastify/create-fastify-adapter';
export { keepRawJsonBody } from './fastify/raw-json-body';
export { DEFAULT_JSON_INPUT_LIMITS, parseGuardedJson } from './fastify/json-input-guard';
export { BodyRefusalToHandler, RefusedBody } from './fastify/refused-body';
export { DEFAULT_SERVER_TIMEOUTS } from './fastify/connection-limits';
export { closeAfterAnswer } from './fastify/lingering-close';
export type { ServerTimeouts } from './fastify/connection-limits';
export { configureHttpApp } from './configure-http-app';
export type { HttpAppOptions } from './configure-http-app';
export {
  createLogger,
  logDestination,
  loggingModule,
  ServiceLogger,
} from './logging/logging.module';
export type { LogFormat } from './logging/logging.module';
export {
  markForwarded,
  markForwardedConnection,
  markUpstreamAnswer,
} from './logging/request-logging';
export { ProblemError } from './problem/problem.error';
export { OAuthError } from './problem/oauth.error';
export type { OAuthErrorCode } from './problem/oauth.error';
export type { ProblemErrorOptions } from './problem/problem.error';
export { PROBLEM_CONTENT_TYPE, problemTypeUri } from './problem/problem-details';
export type { ProblemDetails, ProblemFieldError } from './problem/problem-details';
export { ProblemDetailsFilter } from './problem/problem-details.filter';
export type { DomainProblems } from './problem/exception-to-problem';
export { RequestValidationError } from './validation/request-validation.error';
export { flattenValidationErrors } from './validation/validation-errors';
export { createValidationPipe } from './validation/create-validation-pipe';
export { IsOmittable } from './validation/is-omittable';
export { utf8Body } from './fastify/utf8-body';
export { contentCodingRefusal } from './fastify/content-coding';
export { API_VERSION_HEADER, ApiVersion, SUPPORTED_API_VERSION } from './api-version/api-version';
export {
  ApiVersionMissingError,
  ApiVersionUnsupportedError,
} from './api-version/api-version.errors';
export { REQUEST_ID_HEADER } from './request/request-id';
export { StorableInputGuard } from './storable/storable-input.guard';
export { MAX_JSON_DEPTH, storableExcerpt, unstorableText } from './storable/storable-text';
export { hasOwn, lookupTable, ownValue, PROTOTYPE_KEYS } from './safety/own-property';
export { guardedStream } from './safety/safe-stream';
export {
  allowedMethods,
  MethodNotAllowedError,
  registeredRoutes,
  routeEveryMethod,
  ROUTED_METHODS,
} from './routing/allowed-methods';
export { answerWithProblem, replyWithProblem, writeProblem } from './problem/reply-with-problem';
export type { ProblemLogger } from './problem/reply-with-problem';
export { MAX_IDENTIFIER_LENGTH } from './validation/identifier-length';
export { addProblemAnswers, PROBLEM_SCHEMA } from './problem/problem-openapi';
export { fillDtoSchemas } from './openapi/dto-schemas';
export { isThenable } from './nest/thenable';
export { httpRequestOf } from './nest/http-request-of';
export { routeUrl } from './fastify/route-url';
export { urlPath } from './request/url-path';
export { namesRealInstant } from './validation/real-instant';
