import { Controller, Headers, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '@comanda/http';
import { SIGNATURE_HEADER } from '@comanda/outbound';
import { databaseUnavailable, UnitOfWork } from '@comanda/persistence';
import { Public } from '@comanda/security';
import {
  PartnerEventMediaTypeError,
  PartnerEventNotStoredError,
} from '../domain/notification.errors';
import { PartnerEventReceiptView } from './partner-event.view';
import { ReceivePartnerEvent } from '../usecases/receive-partner-event/receive-partner-event.usecase';

/** The path whose JSON body stays raw bytes: the signature is over exactly those. */
export const PARTNER_EVENTS_PATH = /^\/notifications\/merchants\/[^/]+\/events$/;

/**
 * `{notifications_url}/events` of the spec, where a merchant's notifications_url is
 * `<public base>/notifications/merchants/{merchantId}`. Public (no bearer, no X-Api-Version):
 * the partner authenticates each event with `Comanda-Signature`.
 */
@ApiTags('notifications')
@Controller('notifications/merchants/:merchantId/events')
export class PartnerEventsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly receivePartnerEvent: ReceivePartnerEvent,
  ) {}

  @Public()
  @Post()
  @HttpCode(200)
  @ApiHeader({ name: SIGNATURE_HEADER, required: true, description: 'Signature over the raw body' })
  @ApiBody({
    schema: { type: 'object', additionalProperties: true, description: 'The partner event' },
  })
  @ApiOkResponse({ type: PartnerEventReceiptView })
  async receive(
    @Param('merchantId') merchantId: string,
    @Headers(SIGNATURE_HEADER) signature: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<PartnerEventReceiptView> {
    if (!Buffer.isBuffer(request.body)) {
      throw new PartnerEventMediaTypeError(request.headers['content-type']);
    }
    const rawBody = request.body;
    const receive = () =>
      this.unitOfWork.run((tx) =>
        this.receivePartnerEvent.execute(tx, { merchantId, signature, rawBody }),
      );
    try {
      const received = await receive().catch((error: unknown) => {
        // The connection broke, perhaps once the COMMIT was carried out: "not stored" might
        // be untrue, and for a registration the partner aborts on a 500 (spec rule 4). Once
        // more on a fresh connection: a stored event is found as a duplicate, one that was
        // not is stored now, and a database still away fails again (500).
        if (databaseUnavailable(error)) return receive();
        throw error;
      });
      return { eventId: received.eventId, status: received.duplicate ? 'duplicate' : 'stored' };
    } catch (error) {
      if (error instanceof ProblemError) throw error;
      throw new PartnerEventNotStoredError(error);
    }
  }
}
