import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { createReadStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { guardedStream } from '@comanda/http';
import { Public } from '@comanda/security';
import { RouteNotFoundError } from '../gateway.errors';
import { OpenApiAggregator } from './openapi-aggregator';
import type { OpenApiDocument } from './openapi-merge';

const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
// A Map, not an object literal: `/docs/assets/__proto__` must find nothing.
const ASSETS = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'application/javascript; charset=utf-8'],
]);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Comanda API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;

// Its own file rather than inline, so a Content-Security-Policy without 'unsafe-inline' holds.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: '/docs/openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  requestInterceptor: (request) => { request.headers['X-Api-Version'] = '0'; return request; },
});
`;

/** `/docs`: the merged OpenAPI description of the public API and a Swagger UI page for it. */
@Public()
@ApiExcludeController()
@Controller('docs')
export class DocsController {
  constructor(private readonly aggregator: OpenApiAggregator) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }

  @Get('openapi.json')
  @Header('cache-control', 'no-cache')
  openApi(): Promise<OpenApiDocument> {
    return this.aggregator.document();
  }

  @Get('swagger-initializer.js')
  @Header('content-type', 'application/javascript; charset=utf-8')
  initializer(): string {
    return INITIALIZER;
  }

  @Get('assets/:file')
  asset(@Param('file') file: string, @Res() reply: FastifyReply): Promise<void> | FastifyReply {
    const type = ASSETS.get(file);
    if (!type) throw new RouteNotFoundError('GET', `/docs/assets/${file}`);
    return reply
      .type(type)
      .header('cache-control', 'public, max-age=86400')
      .send(guardedStream(createReadStream(join(SWAGGER_UI_DIR, file))));
  }
}
