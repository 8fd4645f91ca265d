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
}

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

  private async post(path: string, body: unknown): Promise<unknown> {
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
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      if (response.status === 401) this.token = undefined;
      throw new ComandaApiError(
        response.status,
        parsed as ComandaApiError['problem'],
        `POST ${path}`,
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
