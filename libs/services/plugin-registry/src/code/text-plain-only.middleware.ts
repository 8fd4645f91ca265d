import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PluginCodeMediaTypeError } from '../plugin-registry.errors';

/**
 * Plugin code is plain text. Checked before the body is parsed: a JSON content type would
 * otherwise meet the JSON parser first and answer 400 instead of 415.
 */
@Injectable()
export class TextPlainOnlyMiddleware implements NestMiddleware {
  use(request: IncomingMessage, _response: ServerResponse, next: (error?: unknown) => void): void {
    const contentType = request.headers['content-type'];
    const mediaType = contentType?.split(';')[0].trim().toLowerCase();
    // Handed to Fastify's error handler, which answers through the problem filter with a
    // Fastify reply; a throw here would reach the filter with the raw Node response.
    next(mediaType === 'text/plain' ? undefined : new PluginCodeMediaTypeError(contentType));
  }
}
