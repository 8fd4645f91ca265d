import { Body, Controller, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import type { FastifyReply } from 'fastify';
import { PluginCodeMediaTypeError } from '../plugin-registry.errors';
import { codeUrl } from '../plugin-urls';
import { ifNoneMatchHits } from './code-etag';
import {
  PluginCodeService,
  type PluginVersionSummary,
  type StoredCode,
} from './plugin-code.service';
import {
  PluginNameParamsDto,
  PluginVersionParamsDto,
  PluginVersionQueryDto,
} from './plugin-version.params';
import { UnitOfWork } from '@comanda/persistence';
import { PluginVersionsView, StoredCodeView } from './plugin-code.view';

@ApiTags('frontend plugins')
@Controller('frontend/plugins')
export class PluginCodeController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly code: PluginCodeService,
  ) {}

  /** 201 for a new version, 200 when it replaced the code of an existing one. */
  @Post()
  @RequirePermission('plugins:write')
  @ApiConsumes('text/plain')
  @ApiBody({ schema: { type: 'string', description: 'The plugin as a JavaScript module' } })
  @ApiCreatedResponse({ type: StoredCodeView, description: 'A new version' })
  @ApiOkResponse({ type: StoredCodeView, description: 'The code of an existing version replaced' })
  async upload(
    @CurrentPrincipal() principal: Principal,
    @Query() query: PluginVersionQueryDto,
    @Headers('content-type') contentType: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StoredCode> {
    if (typeof body !== 'string' && !Buffer.isBuffer(body))
      throw new PluginCodeMediaTypeError(contentType);
    const code = await this.code.checked(body);
    const stored = await this.unitOfWork.run((tx) =>
      this.code.upload(tx, principal, query.name, query.version, code),
    );
    void reply
      .status(stored.overwritten ? 200 : 201)
      .header('etag', stored.etag)
      .header('location', codeUrl(stored.name, stored.version));
    return stored;
  }

  @Get(':name/versions')
  @ApiOkResponse({ type: PluginVersionsView })
  @RequirePermission('plugins:read')
  async versions(
    @CurrentPrincipal() principal: Principal,
    @Param() params: PluginNameParamsDto,
  ): Promise<{ name: string; items: PluginVersionSummary[] }> {
    return { name: params.name, items: await this.code.versions(principal.tenantId, params.name) };
  }

  /**
   * The bytes as uploaded, as a JavaScript module. `no-cache` because a version can be
   * overwritten: browsers revalidate with the ETag and get a 304 while it is unchanged.
   */
  @Get(':name/versions/:version/code')
  @ApiProduces('text/javascript')
  @ApiOkResponse({ type: String, description: 'The code as uploaded, a JavaScript module' })
  @ApiResponse({ status: 304, description: 'Unchanged since the ETag sent as If-None-Match' })
  @RequirePermission('plugins:read')
  async serve(
    @CurrentPrincipal() principal: Principal,
    @Param() params: PluginVersionParamsDto,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer | undefined> {
    const code = await this.code.code(principal.tenantId, params.name, params.version);
    void reply
      .header('etag', code.etag)
      .header('cache-control', 'private, no-cache')
      .header('x-content-type-options', 'nosniff');
    if (ifNoneMatchHits(ifNoneMatch, code.etag)) {
      void reply.status(304);
      return undefined;
    }
    void reply.header('content-type', 'text/javascript; charset=utf-8');
    return code.bytes;
  }
}
