import { Injectable, Logger } from '@nestjs/common';
import { UpstreamPools, type Upstream } from '../proxy/upstream-pools';
import { mergeOpenApiDocuments, type OpenApiDocument, type ServiceDocument } from './openapi-merge';

const FETCH_TIMEOUT_MS = 5000;

/** Reads every configured service's `GET /openapi.json` and merges them into one document. */
@Injectable()
export class OpenApiAggregator {
  private readonly logger = new Logger(OpenApiAggregator.name);

  constructor(private readonly pools: UpstreamPools) {}

  async document(): Promise<OpenApiDocument> {
    const results = await Promise.all(
      this.pools
        .all()
        .map(async (upstream) => ({ upstream, document: await this.fetch(upstream) })),
    );
    const documents: ServiceDocument[] = [];
    const unavailable: Upstream['name'][] = [];
    for (const { upstream, document } of results) {
      if (document) documents.push({ upstream: upstream.name, document });
      else unavailable.push(upstream.name);
    }
    return mergeOpenApiDocuments(documents, unavailable);
  }

  private async fetch(upstream: Upstream): Promise<OpenApiDocument | undefined> {
    try {
      const response = await upstream.pool.request({
        method: 'GET',
        path: '/openapi.json',
        headers: { accept: 'application/json' },
        headersTimeout: FETCH_TIMEOUT_MS,
        bodyTimeout: FETCH_TIMEOUT_MS,
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        this.logger.warn(`${upstream.name} answered ${response.statusCode} for /openapi.json`);
        return undefined;
      }
      return (await response.body.json()) as OpenApiDocument;
    } catch (error) {
      // A service that is down leaves its paths out of /docs; the document says which.
      this.logger.warn(
        `${upstream.name} /openapi.json unreadable: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }
}
