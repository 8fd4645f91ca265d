import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProblemError } from '@comanda/http';
import { Public } from '@comanda/security';
import { UpstreamHealth, type UpstreamState } from './upstream-health';

/**
 * `/health/upstreams`: 200 when every configured service is ready, else 503 naming those
 * that are not. Kept apart from the gateway's own `/health/ready`, so that one service down
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
    const down = Object.keys(upstreams).filter((name) => upstreams[name] === 'down');
    if (down.length > 0) {
      throw new ProblemError({
        status: 503,
        code: 'upstream.not_ready',
        title: 'Upstreams not ready',
        detail: `Not ready: ${down.join(', ')}.`,
      });
    }
    return { status: 'ok', upstreams };
  }
}
