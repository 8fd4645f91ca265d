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
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import type { FastifyReply } from 'fastify';
import { EntitySlugPipe } from '../common/entity-slug.pipe';
import { QueryParameters } from '../common/query-docs';
import { ETAG_HEADER, entityTag } from '../common/etag';
import { PAGE_SIZE_MAX } from '../common/page';
import { parseBooleanParam, parseBoundedInt, parseInt32 } from '../common/query-params';
import { ConfigInputDto } from './config-input.dto';
import { ConfigView, type ConfigOutput } from './config.output';
import { ConfigService, type ConfigResult } from './config.service';
import { UnitOfWork } from '@comanda/persistence';

function withETag(reply: FastifyReply, result: ConfigResult): ConfigOutput {
  void reply.header('ETag', entityTag(result.version));
  return result.config;
}

@ApiTags('configs')
@Controller('entities/:entity/configs')
@UseGuards(StorableInputGuard)
export class ConfigsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly configs: ConfigService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: ConfigView, headers: ETAG_HEADER })
  @RequirePermission('configs:write')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Body() input: ConfigInputDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConfigOutput> {
    return withETag(
      reply,
      await this.unitOfWork.run((tx) =>
        this.configs.create(tx, principal, entity, input, { dryRun: false }),
      ),
    );
  }

  @Get()
  @ApiOkResponse({ type: ConfigView, headers: ETAG_HEADER })
  @RequirePermission('configs:read')
  @QueryParameters('include_deleted')
  async current(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Query('include_deleted') includeDeleted: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConfigOutput> {
    const options = { includeDeleted: parseBooleanParam('include_deleted', includeDeleted) };
    return withETag(reply, await this.configs.getCurrent(principal, entity, options));
  }

  @Put()
  @ApiOkResponse({ type: ConfigView, headers: ETAG_HEADER })
  @RequirePermission('configs:write')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Body() input: ConfigInputDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConfigOutput> {
    return withETag(
      reply,
      await this.unitOfWork.run((tx) =>
        this.configs.update(tx, principal, entity, input, { dryRun: false, ifMatch }),
      ),
    );
  }

  /** Soft delete: the versions stay, marked, and read again with `include_deleted=true`. */
  @Delete()
  @ApiOkResponse({ type: ConfigView, description: 'The removed version' })
  @RequirePermission('configs:write')
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<ConfigOutput> {
    return (
      await this.unitOfWork.run((tx) => this.configs.remove(tx, principal, entity, { ifMatch }))
    ).config;
  }

  @Post('dry-run')
  @HttpCode(200)
  @ApiOkResponse({ type: ConfigView, description: 'What would be saved; nothing is' })
  @RequirePermission('configs:write')
  async dryRunCreate(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Body() input: ConfigInputDto,
  ): Promise<ConfigOutput> {
    return (
      await this.unitOfWork.run((tx) =>
        this.configs.create(tx, principal, entity, input, { dryRun: true }),
      )
    ).config;
  }

  @Put('dry-run')
  @ApiOkResponse({ type: ConfigView, description: 'What would be saved; nothing is' })
  @RequirePermission('configs:write')
  async dryRunUpdate(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Body() input: ConfigInputDto,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<ConfigOutput> {
    return (
      await this.unitOfWork.run((tx) =>
        this.configs.update(tx, principal, entity, input, { dryRun: true, ifMatch }),
      )
    ).config;
  }

  @Get('versions')
  @ApiOkResponse({ type: [ConfigView], description: 'Newest first' })
  @RequirePermission('configs:read')
  @QueryParameters('take', 'include_deleted', 'include_datatypes')
  async versions(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Query('take') take: string | undefined,
    @Query('include_deleted') includeDeleted: string | undefined,
    @Query('include_datatypes') includeDatatypes: string | undefined,
  ): Promise<ConfigOutput[]> {
    return this.configs.listVersions(principal, entity, {
      take: parseBoundedInt('take', take, { fallback: 1, min: 1, max: PAGE_SIZE_MAX }),
      includeDeleted: parseBooleanParam('include_deleted', includeDeleted),
      includeDatatypes: parseBooleanParam('include_datatypes', includeDatatypes),
    });
  }

  @Get('versions/:version')
  @ApiOkResponse({ type: ConfigView, headers: ETAG_HEADER })
  @RequirePermission('configs:read')
  async version(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Param('version') version: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConfigOutput> {
    return withETag(
      reply,
      await this.configs.getVersion(principal, entity, parseInt32('version', version)),
    );
  }
}
