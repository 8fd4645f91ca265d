import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  PARAMETER_TYPES,
  type ManifestParameter,
  type ParameterType,
  type PluginManifest,
} from './manifest-parameter';

/** How the API description shows {@link ManifestParameter}. */
export class ManifestParameterView implements ManifestParameter {
  @ApiProperty() name!: string;
  @ApiProperty({ enum: PARAMETER_TYPES }) type!: ParameterType;
  @ApiProperty() required!: boolean;
  @ApiPropertyOptional({ description: 'Any JSON value of the parameter type' })
  default?: unknown;
  @ApiPropertyOptional() description?: string;
}

/** How the API description shows {@link PluginManifest}. */
export class PluginManifestView implements PluginManifest {
  @ApiProperty() version!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: [ManifestParameterView] }) parameters!: ManifestParameterView[];
}

/** The answer to a manifest upload: the manifest with its plugin's name. */
export class StoredManifestView extends PluginManifestView {
  @ApiProperty() name!: string;
}
