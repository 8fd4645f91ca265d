import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  ParseIntPipe,
  Post,
  Query,
  DefaultValuePipe,
} from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ProblemError } from '@comanda/http';
import {
  DEAD_LETTER_PAGE_MAX,
  DeadLetterStore,
  describeError,
  type BusServer,
  type DeadLetterRecord,
  type ReplayOutcome,
} from '@comanda/messaging';
import { RequirePermission } from '@comanda/security';
import { SERVICE_NAME } from '../service-definition';
import { DeadLetterPageView, DeadLetterReplayView } from './dead-letter.view';

/** Where the running BusServer is found once the service's consumers are wired. */
export const BUS_SERVER_REF = Symbol('BUS_SERVER_REF');
export interface BusServerRef {
  server?: BusServer;
}

/** A dead letter as the admin API shows it: its id names the service that owns it. */
export interface DeadLetterView extends Omit<DeadLetterRecord, 'id' | 'failedAt'> {
  id: string;
  service: string;
  failedAt: string;
}

class DeadLetterNotFoundError extends ProblemError {
  constructor(id: string) {
    super({
      status: 404,
      code: 'dead_letter.not_found',
      title: 'No such dead letter',
      detail: `dead letter ${id} does not exist (it may have been replayed or purged)`,
    });
  }
}

class ReplayFailedError extends ProblemError {
  constructor(id: string, reason: string) {
    super({
      status: 422,
      code: 'dead_letter.replay_failed',
      title: 'The handler failed again',
      detail: `replaying ${id} failed: ${reason}; the dead letter is kept`,
    });
  }
}

/**
 * The service's own dead letters (docs/operations.md): list newest first, replay through
 * the same consumer and inbox (never applied twice), or purge. The gateway merges the
 * lists of every service at `GET /admin/dead-letters` and routes by the id's service part.
 */
// The merged document takes the path from the service the gateway routes `/admin` to; the
// gateway's merged answers have the same shape.
@ApiTags('admin')
@Controller('admin/dead-letters')
export class DeadLettersController {
  constructor(
    private readonly store: DeadLetterStore,
    @Inject(SERVICE_NAME) private readonly service: string,
    @Inject(BUS_SERVER_REF) private readonly bus: BusServerRef,
  ) {}

  @Get()
  @ApiQuery({ name: 'limit', required: false, type: 'integer' })
  @ApiOkResponse({ type: DeadLetterPageView })
  @RequirePermission('platform:admin')
  async list(
    @Query('limit', new DefaultValuePipe(100), ParseIntPipe) limit: number,
  ): Promise<{ items: DeadLetterView[] }> {
    const bounded = Math.max(1, Math.min(limit, DEAD_LETTER_PAGE_MAX));
    const records = await this.store.list(bounded);
    return { items: records.map((record) => this.view(record)) };
  }

  @Post(':id/replay')
  @HttpCode(200)
  @ApiOkResponse({ type: DeadLetterReplayView })
  @RequirePermission('platform:admin')
  async replay(@Param('id') id: string): Promise<{ id: string; outcome: ReplayOutcome }> {
    const local = this.localId(id);
    const letter = local === undefined ? undefined : await this.store.take(local);
    const server = this.bus.server;
    if (!letter || !server || local === undefined) throw new DeadLetterNotFoundError(id);
    let outcome: ReplayOutcome;
    try {
      outcome = await server.replay(letter.record.consumer, letter);
    } catch (error) {
      await this.store.replayFailed(local, describeError(error));
      throw new ReplayFailedError(id, describeError(error));
    }
    await this.store.remove(local);
    return { id: this.qualified(local), outcome };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Purged' })
  @RequirePermission('platform:admin')
  async purge(@Param('id') id: string): Promise<void> {
    const local = this.localId(id);
    if (local === undefined || !(await this.store.remove(local))) {
      throw new DeadLetterNotFoundError(id);
    }
  }

  private view(record: DeadLetterRecord): DeadLetterView {
    return {
      ...record,
      id: this.qualified(record.id),
      service: this.service,
      failedAt: record.failedAt.toISOString(),
    };
  }

  private qualified(local: string): string {
    return `${this.service}.${local}`;
  }

  /** `orders.42` (or plain `42`) → `42`; undefined for an id of another service or malformed. */
  private localId(id: string): string | undefined {
    const prefix = `${this.service}.`;
    const local = id.startsWith(prefix) ? id.slice(prefix.length) : id;
    return /^[0-9]{1,18}$/.test(local) ? local : undefined;
  }
}
