import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'undici';
import { GatewayConfig } from '../config/gateway.config';
import { UPSTREAMS, type UpstreamName } from '../routing/upstream';

export interface Upstream {
  name: UpstreamName;
  origin: string;
  pool: Pool;
}

/** One keep-alive connection pool per configured upstream, closed when the gateway stops. */
@Injectable()
export class UpstreamPools implements OnApplicationShutdown {
  private readonly upstreams = new Map<UpstreamName, Upstream>();

  constructor(config: GatewayConfig) {
    for (const [name, variable] of Object.entries(UPSTREAMS) as Array<
      [UpstreamName, keyof GatewayConfig]
    >) {
      const url = config[variable];
      if (typeof url !== 'string') continue;
      const origin = new URL(url).origin;
      this.upstreams.set(name, {
        name,
        origin,
        pool: new Pool(origin, {
          connections: config.GATEWAY_UPSTREAM_CONNECTIONS,
          headersTimeout: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
          connectTimeout: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
          keepAliveTimeout: 30_000,
        }),
      });
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
