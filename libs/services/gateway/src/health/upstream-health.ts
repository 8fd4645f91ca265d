import { Injectable } from '@nestjs/common';
import { localRequestHandler, type ReadinessCheck } from '@comanda/runtime';
import { UpstreamPools, type Upstream } from '../proxy/upstream-pools';

const PROBE_TIMEOUT_MS = 2000;

export type UpstreamState = 'up' | 'down';

const NONE_HERE =
  'no service runs in this process: each has its own probe; /health/upstreams asks them';

/** Whether each configured upstream says it is ready (`GET /health/ready` answers 200). */
@Injectable()
export class UpstreamHealth {
  constructor(private readonly pools: UpstreamPools) {}

  async states(): Promise<Record<string, UpstreamState>> {
    const entries = await Promise.all(
      this.pools
        .all()
        .map(async (upstream) => [upstream.name, await this.probe(upstream)] as const),
    );
    return Object.fromEntries(entries);
  }

  /**
   * The gateway's own readiness in standalone: the services of its process are part of it.
   * The port the world reaches (and the image's HEALTHCHECK) would else say ready while every
   * service behind it answers 503. Upstreams of other processes are left to their own probes:
   * one service down must not take the whole public port out of a load balancer.
   */
  readinessOfThisProcess(): ReadinessCheck {
    return {
      name: 'services',
      check: async () => {
        const local = this.pools.all().filter((upstream) => localRequestHandler(upstream.origin));
        // Distributed: nothing to check here, and the answer says so rather than a bare "up".
        if (local.length === 0) return { up: true, details: { inThisProcess: NONE_HERE } };
        const states = await Promise.all(
          local.map(async (upstream) => [upstream.name, await this.probe(upstream)] as const),
        );
        return {
          up: states.every(([, state]) => state === 'up'),
          details: Object.fromEntries(states),
        };
      },
    };
  }

  private async probe(upstream: Upstream): Promise<UpstreamState> {
    try {
      const response = await upstream.pool.request({
        method: 'GET',
        path: '/health/ready',
        headersTimeout: PROBE_TIMEOUT_MS,
        bodyTimeout: PROBE_TIMEOUT_MS,
      });
      await response.body.dump();
      return response.statusCode === 200 ? 'up' : 'down';
    } catch {
      // Refused, reset or timed out: all of them mean "not ready", which is the answer.
      return 'down';
    }
  }
}
