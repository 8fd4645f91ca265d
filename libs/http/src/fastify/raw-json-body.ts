import type { FastifyInstance } from 'fastify';
import { urlPath } from '../request/url-path';
import { parseGuardedJson } from './json-input-guard';
import { contentCodingRefusal } from './content-coding';
import { utf8Body } from './utf8-body';

/**
 * Hands the body of `application/json` requests to the handler as the exact bytes received
 * (a `Buffer`) on the routes `keepsRaw` selects, and parses JSON as usual everywhere else:
 * through the same input guard as every service (depth, width, length, prototype keys).
 * For signed requests (`Comanda-Signature` is an HMAC over the raw body): re-serialised JSON
 * is not the bytes that were signed. Call it from a module's `onModuleInit` (after Nest
 * registered its own parsers, before the server listens).
 */
export function keepRawJsonBody(
  fastify: FastifyInstance,
  keepsRaw: (path: string) => boolean,
): void {
  const { bodyLimit } = fastify.initialConfig;
  if (fastify.hasContentTypeParser('application/json')) {
    fastify.removeContentTypeParser('application/json');
  }
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit },
    (request, body: Buffer, done) => {
      const coded = contentCodingRefusal(request.headers['content-encoding']);
      if (coded) return done(coded, undefined);
      if (keepsRaw(urlPath(request.url))) {
        done(null, body);
        return;
      }
      try {
        done(null, parseGuardedJson(utf8Body(body, 'json')));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}
