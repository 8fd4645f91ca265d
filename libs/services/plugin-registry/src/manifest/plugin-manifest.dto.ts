import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsOmittable } from '@comanda/http';
import { IsPluginName, IsPluginVersion } from '../plugin-identity';
import { PARAMETER_TYPES, type ParameterType } from './manifest-parameter';

export class ManifestParameterDto {
  @IsString()
  @Length(1, 100)
  name!: string;

  @IsIn(PARAMETER_TYPES)
  type!: ParameterType;

  @IsBoolean()
  required!: boolean;

  /** Any JSON value; checked against `type` by the manifest rules. */
  @Allow()
  default?: unknown;

  @IsOmittable()
  @IsString()
  @MaxLength(2000)
  description?: string;
}

export class PluginManifestDto {
  @IsPluginVersion()
  version!: string;

  @IsString()
  @MaxLength(2000)
  description!: string;

  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => ManifestParameterDto)
  parameters!: ManifestParameterDto[];
}

export class ManifestUploadQueryDto {
  @ApiProperty({ description: 'The plugin name' })
  @IsPluginName()
  name!: string;
}
