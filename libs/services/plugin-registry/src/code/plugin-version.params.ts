import { IsPluginName, IsPluginVersion } from '../plugin-identity';

/** `?name=&version=` of a code upload. */
export class PluginVersionQueryDto {
  @IsPluginName()
  name!: string;

  @IsPluginVersion()
  version!: string;
}

/** `{name}/versions/{version}` in a path. */
export class PluginVersionParamsDto {
  @IsPluginName()
  name!: string;

  @IsPluginVersion()
  version!: string;
}

export class PluginNameParamsDto {
  @IsPluginName()
  name!: string;
}
