import { StorableInputGuard } from '@comanda/http';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EntitySlugPipe } from '../common/entity-slug.pipe';
import { QueryParameters } from '../common/query-docs';
import { ETAG_HEADER, entityTag } from '../common/etag';
import { linkNextPage, NEXT_PAGE_LINK_HEADER, parsePageRequest } from '../common/page';
import { parseBooleanParam } from '../common/query-params';
import { ExtensionInputDto } from './extension-input.dto';
import {
  ExtensionSummaryView,
  ExtensionView,
  type ExtensionOutput,
  type ExtensionSummaryOutput,
} from './extension.output';
import { ExtensionService, type ExtensionResult } from './extension.service';
import { UnitOfWork } from '@comanda/persistence';

function withETag(reply: FastifyReply, result: ExtensionResult): ExtensionOutput {
  void reply.header('ETag', entityTag(result.revision));
  return result.extension;
}

@ApiTags('extensions')
@ApiExtraModels(ExtensionView, ExtensionSummaryView)
@Controller('entities/:entity/extensions')
@UseGuards(StorableInputGuard)
export class ExtensionsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly extensions: ExtensionService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: ExtensionView, headers: ETAG_HEADER })
  @RequirePermission('extensions:write')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Body() input: ExtensionInputDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExtensionOutput> {
    return withETag(
      reply,
      await this.unitOfWork.run((tx) => this.extensions.create(tx, principal, entity, input)),
    );
  }

  @Get()
  @ApiOkResponse({
    description: 'Complete extensions with `complete=true`, summaries otherwise; oldest first',
    headers: NEXT_PAGE_LINK_HEADER,
    schema: {
      type: 'array',
      items: {
        anyOf: [
          { $ref: getSchemaPath(ExtensionView) },
          { $ref: getSchemaPath(ExtensionSummaryView) },
        ],
      },
    },
  })
  @RequirePermission('extensions:read')
  @QueryParameters('include_deleted', 'include_private', 'complete', 'created_at_offset', 'limit')
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Query('include_deleted') includeDeleted: string | undefined,
    @Query('include_private') includePrivate: string | undefined,
    @Query('complete') complete: string | undefined,
    @Query('created_at_offset') createdAtOffset: string | undefined,
    @Query('limit') limit: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Array<ExtensionOutput | ExtensionSummaryOutput>> {
    const page = parsePageRequest({ created_at_offset: createdAtOffset, limit });
    const { items, lastCreatedAt } = await this.extensions.listPage(principal, entity, {
      includeDeleted: parseBooleanParam('include_deleted', includeDeleted),
      includePrivate: parseBooleanParam('include_private', includePrivate),
      complete: parseBooleanParam('complete', complete),
      page,
    });
    linkNextPage(request, reply, page, items.length, lastCreatedAt);
    return items;
  }

  @Get(':id')
  @ApiOkResponse({ type: ExtensionView, headers: ETAG_HEADER })
  @RequirePermission('extensions:read')
  @QueryParameters('include_deleted', 'include_private')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Param('id') id: string,
    @Query('include_deleted') includeDeleted: string | undefined,
    @Query('include_private') includePrivate: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExtensionOutput> {
    const options = {
      includeDeleted: parseBooleanParam('include_deleted', includeDeleted),
      includePrivate: parseBooleanParam('include_private', includePrivate),
    };
    return withETag(reply, await this.extensions.get(principal, entity, id, options));
  }

  @Put(':id')
  @ApiOkResponse({ type: ExtensionView, headers: ETAG_HEADER })
  @RequirePermission('extensions:write')
  @QueryParameters('include_deleted')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Param('id') id: string,
    @Query('include_deleted') includeDeleted: string | undefined,
    @Headers('if-match') ifMatch: string | undefined,
    @Body() input: ExtensionInputDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExtensionOutput> {
    const options = {
      includeDeleted: parseBooleanParam('include_deleted', includeDeleted),
      ifMatch,
    };
    return withETag(
      reply,
      await this.unitOfWork.run((tx) =>
        this.extensions.update(tx, principal, entity, id, input, options),
      ),
    );
  }

  @Delete(':id')
  @ApiOkResponse({
    type: ExtensionView,
    headers: ETAG_HEADER,
    description: 'The removed extension',
  })
  @RequirePermission('extensions:write')
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Param('id') id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExtensionOutput> {
    return withETag(
      reply,
      await this.unitOfWork.run((tx) => this.extensions.remove(tx, principal, entity, id)),
    );
  }
}
