import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Socket } from 'node:net';
import { buildConnector, Pool } from 'undici';
import { connectLocally } from '@comanda/runtime';
import { GatewayConfig } from '../config/gateway.config';
import { UPSTREAMS, type UpstreamName } from '../routing/upstream';

export interface Upstream {
  name: UpstreamName;
  origin: string;
  /** `host:port` of the origin, as a request to it names it. */
  host: string;
  pool: Pool;
}

/** One keep-alive connection pool per configured upstream, closed when the gateway stops. */
@Injectable()
export class UpstreamPools implements OnApplicationShutdown {
  private readonly upstreams = new Map<UpstreamName, Upstream>();

  constructor(config: GatewayConfig) {
    const inProcess = config.GATEWAY_IN_PROCESS_UPSTREAMS === 'true';
    const missing: string[] = [];
    for (const [name, variable] of Object.entries(UPSTREAMS) as Array<
      [UpstreamName, keyof GatewayConfig]
    >) {
      const url = config[variable];
      if (typeof url !== 'string') {
        missing.push(variable);
        continue;
      }
      const { origin, host } = new URL(url);
      const connectTimeout = Math.min(config.GATEWAY_UPSTREAM_TIMEOUT_MS, 10_000);
      const overNetwork = buildConnector({ timeout: connectTimeout });
      this.upstreams.set(name, {
        name,
        origin,
        host,
        pool: new Pool(origin, {
          connections: config.GATEWAY_UPSTREAM_CONNECTIONS || null,
          // Each stall of an upstream (connecting, its headers, a gap in its body) ends in
          // a 504 problem rather than a caller waiting forever.
          headersTimeout: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
          bodyTimeout: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
          keepAliveTimeout: 30_000,
          // Standalone: a service of this process is reached without the network (ADR 0035).
          connect: (options, callback) => {
            const local = inProcess ? connectLocally(origin) : undefined;
            // undici expects the connector to answer later, as a real connect does.
            if (local) setImmediate(() => callback(null, local as Socket));
            else overNetwork(options, callback);
          },
        }),
      });
    }
    // A gateway run alone with a service's URL unset (or misspelt) answers that service's
    // paths 404 route.not_found: said once at start, not left to be found by a caller.
    if (missing.length > 0) {
      new Logger('gateway').warn(
        `no upstream for ${missing.join(', ')}: their paths answer 404 until it is set`,
      );
    }
  }

  get(name: UpstreamName): Upstream | undefined {
    return this.upstreams.get(name);
  }

  all(): Upstream[] {
    return [...this.upstreams.values()];
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.all().map((upstream) => upstream.pool.close()));
  }
}
