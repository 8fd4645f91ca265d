import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, request } from 'undici';
import {
  assertAddressAllowed,
  parseOutboundUrl,
  UnsafeUrlError,
  type OutboundPolicy,
} from './outbound-policy';

export interface OutboundRequest {
  headers?: Record<string, string>;
  /** Sent as is: sign exactly these bytes. */
  body: string | Buffer;
  /** Whole request, connect to last byte (default 10 s). */
  timeoutMs?: number;
  /** Aborts the request before its timeout (the sender is stopping). */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** At most `maxResponseBytes` of the body, as text. */
  body: string;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * HTTP client for URLs that come from tenants or partners. The policy is checked on the URL
 * and again on every address the connection resolves to (a DNS answer can change after the
 * URL was saved), redirects are never followed, and answers are read only up to a bound.
 */
export class OutboundHttp {
  private readonly agent: Agent;

  private readonly maxResponseBytes: number;

  /**
   * `connectionsPerOrigin`: at least the sender's concurrency, or requests past it wait in the
   * agent's queue for one host while their timeout runs.
   */
  constructor(
    private readonly policy: OutboundPolicy,
    { maxResponseBytes = 64 * 1024, connectionsPerOrigin = 32 } = {},
  ) {
    this.maxResponseBytes = maxResponseBytes;
    this.agent = new Agent({
      connect: {
        lookup: (hostname, options, callback) => this.lookup(hostname, options, callback),
      },
      connections: connectionsPerOrigin,
    });
  }

  /** Throws `UnsafeUrlError` when the URL may not be called (checked at save time). */
  async check(raw: string): Promise<URL> {
    const url = parseOutboundUrl(raw, this.policy);
    if (this.policy.allowNonPublicAddresses) return url;
    const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      dnsLookup(url.hostname.replace(/^\[|\]$/g, ''), { all: true }, (error, found) =>
        error
          ? reject(new UnsafeUrlError('url.unresolvable', `${url.hostname} does not resolve`))
          : resolve(found),
      ),
    );
    for (const { address } of addresses) assertAddressAllowed(address, this.policy);
    return url;
  }

  async post(raw: string, outgoing: OutboundRequest): Promise<OutboundResponse> {
    const url = parseOutboundUrl(raw, this.policy);
    const timeoutMs = outgoing.timeoutMs ?? 10_000;
    const response = await request(url, {
      method: 'POST',
      headers: outgoing.headers,
      body: outgoing.body,
      dispatcher: this.agent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: outgoing.signal
        ? AbortSignal.any([AbortSignal.timeout(timeoutMs), outgoing.signal])
        : AbortSignal.timeout(timeoutMs),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      if (size + buffer.length > this.maxResponseBytes) {
        chunks.push(buffer.subarray(0, this.maxResponseBytes - size));
        response.body.destroy();
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
    return {
      status: response.statusCode,
      headers: response.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      try {
        for (const { address } of addresses) assertAddressAllowed(address, this.policy);
      } catch (refusal) {
        return callback(refusal as NodeJS.ErrnoException, []);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first)
        return callback(
          Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }),
          [],
        );
      callback(null, first.address, first.family);
    });
  }
}
