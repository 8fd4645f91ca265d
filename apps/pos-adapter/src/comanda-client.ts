/**
 * The three calls an adapter makes to Comanda, with a client-credentials token that is
 * fetched on first use and renewed a minute before it expires.
 */
export interface PlacedReport {
  orderName: string;
  datePlaced: string;
  estimatedReadyTime: string;
  cancelableUntil?: string;
  orderRefsDict?: Record<string, string>;
  receipt?: string;
  extensions?: Record<string, unknown>;
}

export interface FailedReport {
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

/** The order as session start returns it (the fields this adapter reads). */
export interface PlacementOrder {
  id: string;
  items: Array<{
    id: string;
    type: string;
    title: string;
    quantity: number;
    unitPrice?: number;
    mappingDetails: Record<string, string>;
  }>;
  storeDetails?: { mappingDetails?: Record<string, string> };
  requestedReadyTime?: string;
  [member: string]: unknown;
}

/** A non-2xx answer; `status` tells what happened (see docs/pos-integration.md). */
export class ComandaApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { code?: string; detail?: string } | undefined,
    what: string,
    /** The answer's `Retry-After` in ms, when it had one in seconds. */
    readonly retryAfterMs?: number,
  ) {
    super(
      `${what} answered ${status}${problem?.code ? ` ${problem.code}` : ''}: ${problem?.detail ?? ''}`,
    );
    this.name = 'ComandaApiError';
  }
}

export interface ClientSettings {
  apiUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** How long a call met by an outage is sent again (default 150 s). */
  retryForMs?: number;
}

/** Answers that mean "not now": Comanda or its gateway cannot serve the call yet. */
const UNAVAILABLE = new Set([502, 503, 504]);
/** Between two tries when Comanda names no `Retry-After`, and the longest wait it may name. */
const DEFAULT_RETRY_MS = 1_000;
const MAX_RETRY_MS = 10_000;

export class ComandaClient {
  private token?: { value: string; renewAt: number };

  constructor(private readonly settings: ClientSettings) {}

  startSession(orderId: string, placeOrderSessionId: string): Promise<PlacementOrder> {
    return this.post(`/orders/${encodeURIComponent(orderId)}/place-order-session/start`, {
      placeOrderSessionId,
    }) as Promise<PlacementOrder>;
  }

  async reportPlaced(orderId: string, report: PlacedReport): Promise<void> {
    await this.post(`/orders/${encodeURIComponent(orderId)}/pos/placed`, report);
  }

  async reportFailed(orderId: string, report: FailedReport): Promise<void> {
    await this.post(`/orders/${encodeURIComponent(orderId)}/pos/failed`, report);
  }

  /**
   * Sends the call, and sends it again while Comanda answers 502, 503 or 504 or cannot be
   * reached, for up to `retryForMs`: the order may already be cooking, and an outage of
   * Comanda's must not lose its report (docs/pos-integration.md). Every call is safe to send
   * again: a session start with the same id resumes the session, and a report that did go
   * through before the answer was lost is answered 405.
   */
  private async post(path: string, body: unknown): Promise<unknown> {
    const until = Date.now() + (this.settings.retryForMs ?? 150_000);
    for (;;) {
      let waitMs = DEFAULT_RETRY_MS;
      try {
        return await this.postOnce(path, body);
      } catch (error) {
        const unavailable = error instanceof ComandaApiError && UNAVAILABLE.has(error.status);
        // fetch fails with a TypeError when the connection cannot be made or breaks.
        const unreachable = error instanceof TypeError;
        if (!unavailable && !unreachable) throw error;
        if (unavailable && error.retryAfterMs !== undefined) {
          waitMs = Math.min(error.retryAfterMs, MAX_RETRY_MS);
        }
        if (Date.now() + waitMs > until) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  private async postOnce(path: string, body: unknown): Promise<unknown> {
    const response = await fetch(`${this.settings.apiUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await this.accessToken()}`,
        'content-type': 'application/json',
        'x-api-version': '0',
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch (error) {
      // A proxy's error page in front of Comanda is no problem body: the status tells.
      if (response.ok) throw error;
    }
    if (!response.ok) {
      if (response.status === 401) this.token = undefined;
      throw new ComandaApiError(
        response.status,
        parsed as ComandaApiError['problem'],
        `POST ${path}`,
        retryAfterMs(response.headers.get('retry-after')),
      );
    }
    return parsed;
  }

  private async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return this.token.value;
    const response = await fetch(this.settings.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: this.settings.clientId,
        client_secret: this.settings.clientSecret,
        scope: 'orders:placement',
      }),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await response.json()) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
    };
    if (!response.ok || !body.access_token) {
      throw new ComandaApiError(response.status, { code: body.error }, 'token request');
    }
    const lifetimeMs = (body.expires_in ?? 3600) * 1000;
    this.token = {
      value: body.access_token,
      renewAt: Date.now() + Math.max(lifetimeMs - 60_000, 0),
    };
    return body.access_token;
  }
}

function retryAfterMs(header: string | null): number | undefined {
  return header !== null && /^\d+$/.test(header) ? Number(header) * 1_000 : undefined;
}
