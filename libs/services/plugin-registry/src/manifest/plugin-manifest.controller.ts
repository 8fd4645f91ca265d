import { StorableInputGuard } from '@comanda/http';
import { Body, Controller, Get, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import type { FastifyReply } from 'fastify';
import { PluginVersionParamsDto } from '../code/plugin-version.params';
import { manifestUrl } from '../plugin-urls';
import type { PluginManifest } from './manifest-parameter';
import { ManifestUploadQueryDto, PluginManifestDto } from './plugin-manifest.dto';
import { PluginManifestService } from './plugin-manifest.service';
import { PluginManifestView, StoredManifestView } from './plugin-manifest.view';
import { UnitOfWork } from '@comanda/persistence';

@ApiTags('frontend plugins')
@Controller('frontend/plugins')
@UseGuards(StorableInputGuard)
export class PluginManifestController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly manifests: PluginManifestService,
  ) {}

  /** The version comes from the body; 201 for its first manifest, 200 when replacing one. */
  @Post('manifest')
  @ApiCreatedResponse({
    type: StoredManifestView,
    description: 'The first manifest of the version',
  })
  @ApiOkResponse({ type: StoredManifestView, description: 'The manifest of the version replaced' })
  @RequirePermission('plugins:write')
  async upload(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ManifestUploadQueryDto,
    @Body() body: PluginManifestDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ name: string } & PluginManifest> {
    const stored = await this.unitOfWork.run((tx) =>
      this.manifests.upload(tx, principal, query.name, body),
    );
    void reply
      .status(stored.overwritten ? 200 : 201)
      .header('location', manifestUrl(stored.name, stored.manifest.version));
    return { name: stored.name, ...stored.manifest };
  }

  @Get(':name/versions/:version/manifest')
  @ApiOkResponse({ type: PluginManifestView })
  @RequirePermission('plugins:read')
  async manifest(
    @CurrentPrincipal() principal: Principal,
    @Param() params: PluginVersionParamsDto,
  ): Promise<PluginManifest> {
    return this.manifests.manifest(principal.tenantId, params.name, params.version);
  }
}
