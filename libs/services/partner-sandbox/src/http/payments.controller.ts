import { Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { SIGNATURE_HEADER } from '@comanda/outbound';
import { InvalidOperationError } from '../domain/sandbox.errors';
import { AcceptOperation, type AcceptedOperation } from '../usecases/accept-operation.usecase';
import { AcceptedOperationView } from './sandbox.views';

/** The partner endpoint of the spec, `{partner_url}/payments`: 202, or 400 and no event. */
@ApiTags('partner')
@Controller('payments')
export class PaymentsController {
  constructor(private readonly acceptOperation: AcceptOperation) {}

  @Post()
  @HttpCode(202)
  @ApiBody({
    schema: { type: 'object', additionalProperties: true, description: 'A signed operation' },
  })
  @ApiAcceptedResponse({
    type: AcceptedOperationView,
    description: 'Accepted; an event completes it later',
  })
  accept(
    @Headers(SIGNATURE_HEADER) signature: string | undefined,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
  ): AcceptedOperation {
    const body = request.body;
    // Another content type is not an operation request: answer as the spec says for one.
    if (!Buffer.isBuffer(body)) throw InvalidOperationError.malformedJson();
    return this.acceptOperation.execute({ rawBody: body, signature, idempotencyKey });
  }
}
