import { isUtf8 } from 'node:buffer';
import { ProblemError } from '../problem/problem.error';

/**
 * A body read as bytes, as text. Bytes that are not UTF-8 are refused, saying so: decoded as
 * a string they would become replacement characters, and Fastify would then refuse the body
 * for a Content-Length that no longer matched (a wrong reason for a right refusal).
 */
export function utf8Body(body: Buffer, kind: 'json' | 'text'): string {
  if (!isUtf8(body)) {
    const json = kind === 'json';
    throw new ProblemError({
      status: 400,
      code: json ? 'request.malformed_json' : 'request.invalid_encoding',
      title: json ? 'Malformed JSON' : 'Invalid encoding',
      detail: 'The request body is not valid UTF-8.',
    });
  }
  return body.toString('utf8');
}
