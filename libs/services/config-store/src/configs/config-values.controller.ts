import { StorableInputGuard } from '@comanda/http';
import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import { EntitySlugPipe } from '../common/entity-slug.pipe';
import { QueryParameters } from '../common/query-docs';
import { parseBooleanParam } from '../common/query-params';
import { ConfigValuesService, type ConfigValuesOutput } from './config-values.service';
import { ConfigValuesView } from './config-values.view';

@ApiTags('configs')
@Controller('entities/:entity/values')
@UseGuards(StorableInputGuard)
export class ConfigValuesController {
  constructor(private readonly values: ConfigValuesService) {}

  @Get()
  @ApiOkResponse({ type: ConfigValuesView })
  @RequirePermission('configs:read')
  @QueryParameters('complete')
  read(
    @CurrentPrincipal() principal: Principal,
    @Param('entity', EntitySlugPipe) entity: string,
    @Query('complete') complete: string | undefined,
  ): Promise<ConfigValuesOutput> {
    return this.values.read(principal, entity, {
      complete: parseBooleanParam('complete', complete),
    });
  }
}
