import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../problem/problem.error';
import { problemForStatus } from '../problem/status-problems';

interface ErrorWithStatus {
  statusCode: number;
  code?: unknown;
  message: string;
  headers?: unknown;
}

export function hasStatusCode(error: unknown): error is ErrorWithStatus {
  return (
    error instanceof Error && typeof (error as Partial<ErrorWithStatus>).statusCode === 'number'
  );
}

function stringHeaders(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object') return undefined;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
      .map(([k, v]) => [k, String(v)]),
  );
}

/**
 * Errors Fastify raises before any Nest code runs (body limit, content-type parsers, URL
 * decoding) and errors of Fastify plugins (`statusCode` set, e.g. @fastify/rate-limit), as
 * problems. Undefined when the error is none of these.
 */
export function problemFromFastifyError(
  error: unknown,
  request: FastifyRequest,
): ProblemError | undefined {
  if (!hasStatusCode(error)) return undefined;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError({
        status: 413,
        code: 'request.too_large',
        title: 'Request body too large',
        detail: `The request body exceeds the limit of ${request.routeOptions.bodyLimit ?? request.server.initialConfig.bodyLimit} bytes.`,
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProblemError({
        status: 415,
        code: 'request.unsupported_media_type',
        title: 'Unsupported media type',
        detail: `Content type "${request.headers['content-type'] ?? ''}" is not accepted here.`,
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError({
        status: 400,
        code: 'request.malformed_json',
        title: 'Malformed JSON',
        detail:
          error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? 'The body is empty but the content type says JSON.'
            : 'The request body is not valid JSON.',
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProblemError({
        status: 400,
        code: 'request.invalid_content_length',
        title: 'Invalid Content-Length',
        detail: 'The Content-Length header does not match the body.',
      });
    case 'FST_ERR_BAD_URL':
      return new ProblemError({
        status: 400,
        code: 'request.bad_url',
        title: 'Bad URL',
        detail: 'The request URL cannot be decoded.',
      });
    case 'FST_ERR_MAX_PARAM_LENGTH': {
      // Fastify's message quotes the whole path, however long: the limit says enough.
      const limit = (
        request.server.initialConfig as { routerOptions?: { maxParamLength?: number } }
      ).routerOptions?.maxParamLength;
      return new ProblemError({
        status: 414,
        code: 'request.uri_too_long',
        title: 'URI too long',
        detail:
          limit === undefined
            ? 'A path segment is longer than this service accepts.'
            : `A path segment is longer than ${limit} characters, the most this service accepts.`,
      });
    }
    default:
      return problemForStatus(error.statusCode, error.message, stringHeaders(error.headers));
  }
}
