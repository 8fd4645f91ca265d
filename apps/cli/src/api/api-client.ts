import { ApiError } from './api-error';

const API_VERSION = '0';
const TIMEOUT_MS = 30_000;

export interface RequestOptions {
  /** Sent as JSON unless `contentType` says otherwise (then it must be a string). */
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
}

/**
 * The Comanda public API as every command calls it: base URL of the gateway, the bearer
 * token, `X-Api-Version: 0`, JSON in and out, and problem+json answers raised as ApiError.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly accessToken?: string,
  ) {}

  get<T>(path: string, options: Omit<RequestOptions, 'body'> = {}): Promise<T> {
    return this.request<T>('GET', path, options);
  }

  post<T>(path: string, body?: unknown, options: Omit<RequestOptions, 'body'> = {}): Promise<T> {
    return this.request<T>('POST', path, { ...options, body });
  }

  put<T>(path: string, body?: unknown, options: Omit<RequestOptions, 'body'> = {}): Promise<T> {
    return this.request<T>('PUT', path, { ...options, body });
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(
      path.replace(/^\//, ''),
      this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`,
    );
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      'x-api-version': API_VERSION,
      accept: 'application/json',
    };
    if (this.accessToken) headers['authorization'] = `Bearer ${this.accessToken}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = options.contentType ?? 'application/json';
      body = options.contentType ? String(options.body) : JSON.stringify(options.body);
    }

    const text = await sendForText(url, { method, headers, body });
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

/**
 * One HTTP exchange with the API: the answer's text on success, an `ApiError` carrying the
 * problem (or saying the API could not be reached) otherwise.
 */
export async function sendForText(
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    const reason =
      error instanceof Error
        ? ((error.cause as Error | undefined)?.message ?? error.message)
        : String(error);
    throw new ApiError(
      0,
      'Cannot reach the Comanda API',
      `${url.origin}: ${reason}`,
      'cli.unreachable',
      undefined,
    );
  }
  const text = await response.text();
  if (!response.ok) {
    throw ApiError.from(
      response.status,
      response.statusText,
      text,
      response.headers.get('x-request-id') ?? undefined,
    );
  }
  return text;
}
