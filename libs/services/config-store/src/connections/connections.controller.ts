import { StorableInputGuard } from '@comanda/http';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import { EntitySlugPipe } from '../common/entity-slug.pipe';
import { QueryParameters } from '../common/query-docs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { linkNextPage, NEXT_PAGE_LINK_HEADER, parsePageRequest } from '../common/page';
import { parseBooleanParam, parseTextParam } from '../common/query-params';
import { parseEntityTypeParam } from './connection-entity-type.param';
import { ConnectionInputDto } from './connection-input.dto';
import { ConnectionView, type ConnectionOutput } from './connection.output';
import { ConnectionService } from './connection.service';
import { UnitOfWork } from '@comanda/persistence';

@ApiTags('connections')
@Controller('entities/:entity/connections')
@UseGuards(StorableInputGuard)
export class ConnectionsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly connections: ConnectionService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: ConnectionView })
  @RequirePermission('connections:write')
  create(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Body() input: ConnectionInputDto,
  ): Promise<ConnectionOutput> {
    return this.unitOfWork.run((tx) => this.connections.create(tx, principal, entity, input));
  }

  /** Ascending by creation time; the next page starts after the last `createdAt` seen. */
  @Get()
  @ApiOkResponse({
    type: [ConnectionView],
    description: 'Oldest first',
    headers: NEXT_PAGE_LINK_HEADER,
  })
  @RequirePermission('connections:read')
  @QueryParameters('entity_id', 'entity_type', 'created_at_offset', 'limit')
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Query('entity_id') entityId: unknown,
    @Query('entity_type') entityType: string | undefined,
    @Query('created_at_offset') createdAtOffset: string | undefined,
    @Query('limit') limit: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConnectionOutput[]> {
    const page = parsePageRequest({ created_at_offset: createdAtOffset, limit });
    const items = await this.connections.list(principal, entity, {
      entityId: parseTextParam('entity_id', entityId),
      entityType: parseEntityTypeParam(entityType),
      page,
    });
    linkNextPage(request, reply, page, items.length, items.at(-1)?.createdAt);
    return items;
  }

  @Get(':id')
  @ApiOkResponse({ type: ConnectionView })
  @RequirePermission('connections:read')
  @QueryParameters('entity_type', 'include_deleted')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Param('id') id: string,
    @Query('entity_type') entityType: string | undefined,
    @Query('include_deleted') includeDeleted: string | undefined,
  ): Promise<ConnectionOutput> {
    return this.connections.get(principal, entity, id, {
      entityType: parseEntityTypeParam(entityType),
      includeDeleted: parseBooleanParam('include_deleted', includeDeleted),
    });
  }

  /** Answers 200 with an empty body, as the spec states. */
  @Put(':id')
  @ApiOkResponse({ description: 'Saved; the answer has no body, as the spec states' })
  @RequirePermission('connections:write')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Param('id') id: string,
    @Body() input: ConnectionInputDto,
  ): Promise<void> {
    await this.unitOfWork.run((tx) => this.connections.update(tx, principal, entity, id, input));
  }

  @Delete(':id')
  @ApiOkResponse({ type: ConnectionView, description: 'The removed connection' })
  @RequirePermission('connections:write')
  @QueryParameters('entity_type')
  remove(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Param('id') id: string,
    @Query('entity_type') entityType: string | undefined,
  ): Promise<ConnectionOutput> {
    return this.unitOfWork.run((tx) =>
      this.connections.remove(tx, principal, entity, id, {
        entityType: parseEntityTypeParam(entityType),
      }),
    );
  }
}
