import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsPluginName } from '../plugin-identity';

export const PLUGIN_CONFIG_PAGE_DEFAULT = 20;
export const PLUGIN_CONFIG_PAGE_MAX = 100;

/**
 * `GET /frontend/plugins/configs?name=&limit=&cursor=`: the tenant's configs, or those of one
 * plugin, by name then creation, a page at a time.
 */
export class PluginConfigListQueryDto {
  @ApiPropertyOptional({ description: 'Only the configs of this plugin' })
  @IsOptional()
  @IsPluginName()
  name?: string;

  @ApiPropertyOptional({
    description: 'Page size',
    type: Number,
    minimum: 1,
    maximum: PLUGIN_CONFIG_PAGE_MAX,
    default: PLUGIN_CONFIG_PAGE_DEFAULT,
  })
  @IsOptional()
  @Matches(/^(?:[1-9]\d?|100)$/, {
    message: `limit must be an integer from 1 to ${PLUGIN_CONFIG_PAGE_MAX}`,
  })
  limit?: string;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the page before' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  cursor?: string;
}
