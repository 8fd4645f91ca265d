import { PROBLEM_CONTENT_TYPE } from './problem-details';

interface OpenApiLike {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
}

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete']);

/** `ProblemDetails` as an OpenAPI component schema. */
export const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable machine code, `<area>.<reason>`.' },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

/**
 * Describes, on every operation of a service's document, the problem+json answer every error
 * has (`default`, schema `Problem`), so a generated client types its errors without each
 * route saying so. Operations that describe a specific error status keep theirs.
 */
export function addProblemAnswers<T extends object>(input: T): T {
  const document = input as OpenApiLike;
  const components = (document.components ??= {});
  const schemas = (components['schemas'] ??= {});
  schemas['Problem'] ??= PROBLEM_SCHEMA;
  for (const item of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || !operation || typeof operation !== 'object') continue;
      const responses = ((operation as { responses?: Record<string, unknown> }).responses ??= {});
      responses['default'] ??= {
        description: 'Any error: a problem (RFC 9457) with a stable `code`.',
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
  }
  return input;
}
