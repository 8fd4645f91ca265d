import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@comanda/security';
import { ProxyService } from './proxy.service';
import { RequestGate } from './request-gate';

/**
 * Every path the gateway does not serve itself. Public here because the gateway verifies no
 * token: the service behind it does, for every request.
 */
@Public()
@ApiExcludeController()
@Controller()
export class GatewayController {
  constructor(
    private readonly gate: RequestGate,
    private readonly proxy: ProxyService,
  ) {}

  @All('*')
  async forward(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const admitted = await this.gate.admit(request, reply);
    await this.proxy.forward(request, reply, admitted);
  }
}
