import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProblemError } from '@comanda/http';
import { Public } from '@comanda/security';
import { UPSTREAM_RETRY_AFTER_SECONDS } from '../gateway.errors';
import { UpstreamHealth, type UpstreamState } from './upstream-health';

/**
 * `/health/upstreams`: 200 when every configured service is ready, else 503 naming those
 * that are not, and those that are. Kept apart from the gateway's own `/health/ready`, so that one service down
 * does not take the whole public port out of the load balancer.
 */
@Public()
@ApiExcludeController()
@Controller('health')
export class UpstreamHealthController {
  constructor(private readonly health: UpstreamHealth) {}

  @Get('upstreams')
  async upstreams(): Promise<{ status: 'ok'; upstreams: Record<string, UpstreamState> }> {
    const upstreams = await this.health.states();
    const names = Object.keys(upstreams);
    const down = names.filter((name) => upstreams[name] === 'down');
    if (down.length > 0) {
      const up = names.filter((name) => upstreams[name] === 'up');
      throw new ProblemError({
        status: 503,
        code: 'upstream.not_ready',
        title: 'Upstreams not ready',
        detail: `Not ready: ${down.join(', ')}.${up.length > 0 ? ` Ready: ${up.join(', ')}.` : ''}`,
        // As for a request the gateway cannot forward: the upstreams are looked at again then.
        headers: { 'Retry-After': String(UPSTREAM_RETRY_AFTER_SECONDS) },
      });
    }
    return { status: 'ok', upstreams };
  }
}
