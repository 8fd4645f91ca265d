import { Injectable } from '@nestjs/common';
import { localRequestHandler, type MetricsSource, type ReadinessCheck } from '@comanda/runtime';
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

  /**
   * The metrics of the services of this process (standalone), served beside the gateway's
   * own at its `/metrics`: their ports are internal and drawn at random, so the public port is
   * the one an operator can scrape. A service that does not answer in time is left out of
   * that scrape. Distributed, each service's pod is scraped itself: nothing to add.
   */
  metricsOfThisProcess(): MetricsSource {
    return {
      expositions: async () => {
        const local = this.pools.all().filter((upstream) => localRequestHandler(upstream.origin));
        const texts = await Promise.all(local.map((upstream) => this.metricsOf(upstream)));
        return texts.filter((text): text is string => text !== undefined);
      },
    };
  }

  private async metricsOf(upstream: Upstream): Promise<string | undefined> {
    const answer = await this.ask(upstream, '/metrics');
    return answer?.status === 200 ? answer.body : undefined;
  }

  private async probe(upstream: Upstream): Promise<UpstreamState> {
    // Refused, reset or timed out: all of them mean "not ready", which is the answer.
    return (await this.ask(upstream, '/health/ready'))?.status === 200 ? 'up' : 'down';
  }

  /** A GET to the upstream within the probe deadline; undefined when it did not answer. */
  private async ask(
    upstream: Upstream,
    path: string,
  ): Promise<{ status: number; body: string } | undefined> {
    try {
      const response = await upstream.pool.request({
        method: 'GET',
        path,
        headersTimeout: PROBE_TIMEOUT_MS,
        bodyTimeout: PROBE_TIMEOUT_MS,
      });
      return { status: response.statusCode, body: await response.body.text() };
    } catch {
      return undefined;
    }
  }
}
