import { Injectable } from '@nestjs/common';
import { UpstreamPools, type Upstream } from '../proxy/upstream-pools';

const PROBE_TIMEOUT_MS = 2000;

export type UpstreamState = 'up' | 'down';

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
