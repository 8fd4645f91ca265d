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
    let admitted;
    try {
      admitted = await this.gate.admit(request, reply);
    } catch (error) {
      // Refused from its headers: the body was never read, and is not worth reading now.
      if (hasBody(request)) reply.header('connection', 'close');
      throw error;
    }
    await this.proxy.forward(request, reply, admitted);
  }
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length.trim() !== '0') || 'transfer-encoding' in request.headers;
}
