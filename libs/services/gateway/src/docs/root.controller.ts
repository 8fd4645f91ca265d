import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@comanda/security';
import { OpenApiAggregator } from './openapi-aggregator';
import type { OpenApiDocument } from './openapi-merge';

export interface ApiRoot {
  title: string;
  docs: string;
  openapi: string;
}

/** `GET /`: where a person or a client finds the API description. */
@Public()
@ApiExcludeController()
@Controller()
export class RootController {
  constructor(private readonly aggregator: OpenApiAggregator) {}

  @Get()
  @Header('link', '</docs>; rel="service-doc", </openapi.json>; rel="service-desc"')
  root(): ApiRoot {
    return { title: 'Comanda API', docs: '/docs', openapi: '/openapi.json' };
  }

  /** The whole API description: every service's operations and schemas, merged. */
  @Get('openapi.json')
  @Header('cache-control', 'no-cache')
  openApi(): Promise<OpenApiDocument> {
    return this.aggregator.document();
  }
}
