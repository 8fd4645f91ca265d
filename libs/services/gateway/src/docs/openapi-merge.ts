import { isVersionExempt } from '../routing/request-policy';
import { owningUpstream } from '../routing/route-table';
import type { UpstreamName } from '../routing/upstream';

/** The parts of an OpenAPI 3 document the merge touches; the rest is carried as is. */
export interface OpenApiDocument {
  openapi?: string;
  info?: Record<string, unknown>;
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  tags?: Array<{ name: string } & Record<string, unknown>>;
  [member: string]: unknown;
}

export interface ServiceDocument {
  upstream: UpstreamName;
  document: OpenApiDocument;
}

/**
 * One description of the public API from each service's own: the paths a service owns
 * through the gateway (its health and internal routes are left out), the components and
 * tags of all of them (the first service to name a component keeps it), and the list of
 * services whose description could not be read.
 */
export function mergeOpenApiDocuments(
  documents: readonly ServiceDocument[],
  unavailable: readonly UpstreamName[],
): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, { name: string } & Record<string, unknown>>();

  for (const { upstream, document } of documents) {
    for (const [path, operations] of Object.entries(document.paths ?? {})) {
      if (owningUpstream(path) !== upstream) continue;
      paths[path] = { ...operations, ...paths[path] };
      if (isVersionExempt(path)) paths[path] = withoutBearerOrVersion(paths[path]);
    }
    for (const [kind, entries] of Object.entries(document.components ?? {})) {
      components[kind] = { ...entries, ...components[kind] };
    }
    for (const tag of document.tags ?? []) if (!tags.has(tag.name)) tags.set(tag.name, tag);
  }

  return {
    openapi: '3.0.0',
    info: {
      title: 'Comanda API',
      version: '0',
      description:
        'The public API of Comanda, served through the gateway. Every request carries `X-Api-Version: 0` and a bearer token from `POST /auth/{tenant}/connect/token`, except those to the OAuth endpoints themselves and the partner events (signed instead).',
    },
    servers: [{ url: '/' }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components,
    tags: [...tags.values()],
    security: [{ bearer: [] }],
    'x-comanda-unavailable-services': [...unavailable],
  };
}

interface Operation {
  parameters?: Array<{ name?: unknown; in?: unknown }>;
  [member: string]: unknown;
}

/**
 * The operations of a path reached without a bearer token and without `X-Api-Version` (the
 * OAuth endpoints, partner events: `isVersionExempt`, as the gateway checks them), as such:
 * no security requirement (the document's default is the bearer token) and no version
 * header, which every service's own document lists for all of its operations. A client
 * generated from the document would otherwise send a token it cannot have yet.
 */
function withoutBearerOrVersion(operations: Record<string, unknown>): Record<string, unknown> {
  const open: Record<string, unknown> = {};
  for (const [method, value] of Object.entries(operations)) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      open[method] = value;
      continue;
    }
    const operation = value as Operation;
    const parameters = operation.parameters?.filter(
      (parameter) =>
        !(
          parameter.in === 'header' &&
          typeof parameter.name === 'string' &&
          parameter.name.toLowerCase() === 'x-api-version'
        ),
    );
    open[method] = {
      ...operation,
      ...(parameters === undefined ? {} : { parameters }),
      security: [],
    };
  }
  return open;
}
