import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Readable } from 'node:stream';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json<T = Record<string, unknown>>(): T;
}

/**
 * A client on node:http, which (unlike fetch and undici) sends any header as given, such as
 * hop-by-hop headers, and a chunked body without Content-Length.
 */
export function send(
  baseUrl: string,
  path: string,
  options: {
    method?: string;
    headers?: OutgoingHttpHeaders;
    body?: Buffer | string | Readable;
    /** Gives up (the socket is destroyed, the promise rejects) after this long. */
    timeoutMs?: number;
  } = {},
): Promise<RawResponse> {
  // The path goes out as given: WHATWG URL parsing would resolve `%2e%2e` segments.
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        hostname,
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            json: <T>() => JSON.parse(body.toString('utf8')) as T,
          });
        });
      },
    );
    request.on('error', reject);
    if (options.timeoutMs !== undefined) {
      request.setTimeout(options.timeoutMs, () => request.destroy(new Error('gave up waiting')));
    }
    const { body } = options;
    if (body instanceof Readable) body.pipe(request);
    else request.end(body);
  });
}

/** A body of `size` bytes streamed in 64 KiB chunks (chunked transfer, no Content-Length). */
export function chunkedBody(content: Buffer): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < content.length; offset += 64 * 1024)
        yield content.subarray(offset, offset + 64 * 1024);
    })(),
  );
}
