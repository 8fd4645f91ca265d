import { ApiProperty } from '@nestjs/swagger';
import { IsPluginName, IsPluginVersion } from '../plugin-identity';

// The API reference declares these (query or path) parameters from the properties below.
const NAME = { description: 'The plugin name' };
const VERSION = { description: 'The plugin version (semantic version)' };

/** `?name=&version=` of a code upload. */
export class PluginVersionQueryDto {
  @ApiProperty(NAME)
  @IsPluginName()
  name!: string;

  @ApiProperty(VERSION)
  @IsPluginVersion()
  version!: string;
}

/** `{name}/versions/{version}` in a path. */
export class PluginVersionParamsDto {
  @ApiProperty(NAME)
  @IsPluginName()
  name!: string;

  @ApiProperty(VERSION)
  @IsPluginVersion()
  version!: string;
}

export class PluginNameParamsDto {
  @ApiProperty(NAME)
  @IsPluginName()
  name!: string;
}
