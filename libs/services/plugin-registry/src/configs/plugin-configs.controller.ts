import { StorableInputGuard } from '@comanda/http';
import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import { PLUGIN_CONFIG_PAGE_DEFAULT, PluginConfigListQueryDto } from './plugin-config-list.query';
import { parsePluginConfigBody } from './plugin-config-body';
import {
  PluginConfigService,
  type PluginConfigPage,
  type PluginConfigView,
} from './plugin-config.service';
import { UnitOfWork } from '@comanda/persistence';
import {
  PluginConfigInputView,
  PluginConfigListView,
  StoredPluginConfigView,
} from './plugin-config.view';

@ApiTags('frontend plugins')
@Controller('frontend/plugins')
@UseGuards(StorableInputGuard)
export class PluginConfigsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly configs: PluginConfigService,
  ) {}

  /** The list integrators use to find a config id (the spec leaves its path open). */
  @Get('configs')
  @ApiOkResponse({ type: PluginConfigListView })
  @RequirePermission('plugins:read')
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: PluginConfigListQueryDto,
  ): Promise<PluginConfigPage> {
    return this.configs.list(principal.tenantId, {
      name: query.name,
      limit: query.limit === undefined ? PLUGIN_CONFIG_PAGE_DEFAULT : Number(query.limit),
      cursor: query.cursor,
    });
  }

  @Post('configs')
  @HttpCode(201)
  @ApiBody({ type: PluginConfigInputView })
  @ApiCreatedResponse({ type: StoredPluginConfigView })
  @RequirePermission('plugins:write')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
  ): Promise<PluginConfigView> {
    return this.unitOfWork.run((tx) =>
      this.configs.create(tx, principal, parsePluginConfigBody(body)),
    );
  }

  @Put(':id/config')
  @ApiBody({ type: PluginConfigInputView })
  @ApiOkResponse({ type: StoredPluginConfigView })
  @RequirePermission('plugins:write')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<PluginConfigView> {
    return this.unitOfWork.run((tx) =>
      this.configs.update(tx, principal, id, parsePluginConfigBody(body)),
    );
  }
}
