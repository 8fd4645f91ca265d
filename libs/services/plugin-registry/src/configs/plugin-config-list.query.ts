import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsPluginName } from '../plugin-identity';

/** `GET /frontend/plugins/configs?name=`: all configs of the tenant, or those of one plugin. */
export class PluginConfigListQueryDto {
  @ApiPropertyOptional({ description: 'Only the configs of this plugin' })
  @IsOptional()
  @IsPluginName()
  name?: string;
}
