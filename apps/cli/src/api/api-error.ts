/** A failed API call, from the problem+json (or OAuth error) body the server answered. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string | undefined,
    readonly code: string | undefined,
    readonly requestId: string | undefined,
    readonly errors: ReadonlyArray<{ path: string; message: string }> = [],
  ) {
    super(detail ? `${title}: ${detail}` : title);
    this.name = 'ApiError';
  }

  /** Builds the error from a response body: RFC 9457 problem, RFC 6749 §5.2 error, or text. */
  static from(
    status: number,
    statusText: string,
    body: string,
    requestId: string | undefined,
  ): ApiError {
    const parsed = parseObject(body);
    if (parsed && typeof parsed['title'] === 'string') {
      return new ApiError(
        status,
        parsed['title'],
        stringOrUndefined(parsed['detail']),
        stringOrUndefined(parsed['code']),
        stringOrUndefined(parsed['requestId']) ?? requestId,
        Array.isArray(parsed['errors'])
          ? (parsed['errors'] as Array<{ path: string; message: string }>)
          : [],
      );
    }
    if (parsed && typeof parsed['error'] === 'string') {
      return new ApiError(
        status,
        parsed['error'],
        stringOrUndefined(parsed['error_description']),
        parsed['error'],
        requestId,
      );
    }
    return new ApiError(
      status,
      statusText || `HTTP ${status}`,
      body.trim().slice(0, 500) || undefined,
      undefined,
      requestId,
    );
  }
}

function parseObject(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    // Not JSON: ApiError.from reports the text itself.
    return undefined;
  }
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
