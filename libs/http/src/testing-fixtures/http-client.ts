export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  json: <T = Record<string, unknown>>() => T;
}

/** `fetch` with the API version header set unless the test says otherwise. */
export async function call(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array;
    apiVersion?: string | null;
  } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...init.headers };
  const apiVersion = init.apiVersion === undefined ? '0' : init.apiVersion;
  if (apiVersion !== null) headers['x-api-version'] = apiVersion;
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: <T>() => JSON.parse(text) as T,
  };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}
