import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsOptional,
  IsString,
  Length,
  ValidateNested,
} from 'class-validator';
import { LIMITS } from '../common/limits';
import { IsJsonObjectWithin } from '../common/validators';
import { ExtensionReferenceDto } from '../extensions/extension-reference.dto';

export class ConfigInputDto {
  @IsString()
  @Length(1, LIMITS.idLength)
  id!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.extensionReferences)
  @ValidateNested({ each: true })
  @Type(() => ExtensionReferenceDto)
  extensionReferences?: ExtensionReferenceDto[];

  /** Free-form settings; absent means `{}`. */
  @IsOptional()
  @IsJsonObjectWithin(LIMITS.valuesBytes)
  values?: Record<string, unknown>;
}
