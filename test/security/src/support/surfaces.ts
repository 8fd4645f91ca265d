import type { Deployment, DeploymentProcess } from './deployment';

export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
}

export interface Operation {
  method: string;
  /** As the document writes it: `/entities/{entity}/configs`. */
  path: string;
  /** The operation takes an `application/json` body. */
  jsonBody: boolean;
  /** The operation takes a body of another media type only (plugin code as text/plain). */
  otherBody: boolean;
}

/** A port an attacker can send requests to, with the operations it answers. */
export interface Surface {
  name: string;
  url: string;
  process: DeploymentProcess;
  operations: Operation[];
}

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete']);

export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => {
        const body = (operation as { requestBody?: { content?: object } }).requestBody;
        const types = Object.keys(body?.content ?? {});
        const jsonBody = types.some((type) => /^application\/(?:[\w.-]+\+)?json$/.test(type));
        return {
          method: method.toUpperCase(),
          path,
          jsonBody,
          otherBody: types.length > 0 && !jsonBody,
        };
      }),
  );
}

export async function documentAt(url: string): Promise<OpenApiDocument> {
  const response = await fetch(`${url}/openapi.json`);
  if (response.status !== 200) throw new Error(`${url}/openapi.json: ${response.status}`);
  return (await response.json()) as OpenApiDocument;
}

/**
 * Every port of the deployment an attacker may reach, with what it answers: the public port
 * (the whole API, as the gateway describes it) and, distributed, each service's own port
 * (the operations that service describes), as anyone on the internal network reaches them.
 */
export async function attackSurfaces(deployment: Deployment): Promise<Surface[]> {
  const surfaces: Surface[] = [
    {
      name: 'public port',
      url: deployment.baseUrl,
      process: deployment.front,
      operations: operationsOf(await documentAt(deployment.baseUrl)),
    },
  ];
  for (const service of deployment.internal) {
    surfaces.push({
      name: `${service.name}'s own port`,
      url: service.url,
      process: service,
      operations: operationsOf(await documentAt(service.url)),
    });
  }
  return surfaces;
}

/** A path of the document with every parameter set to `value`. */
export function pathWith(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, encodeURIComponent(value));
}
