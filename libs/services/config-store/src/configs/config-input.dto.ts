import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsString, Length, ValidateNested } from 'class-validator';
import { IsOmittable } from '@comanda/http';
import { LIMITS } from '../common/limits';
import { IsJsonObjectWithin } from '../common/validators';
import { ExtensionReferenceDto } from '../extensions/extension-reference.dto';

export class ConfigInputDto {
  @IsString()
  @Length(1, LIMITS.idLength)
  id!: string;

  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(LIMITS.extensionReferences)
  @ValidateNested({ each: true })
  @Type(() => ExtensionReferenceDto)
  extensionReferences?: ExtensionReferenceDto[];

  /** Free-form settings; absent means `{}`. */
  @IsOmittable()
  @IsJsonObjectWithin(LIMITS.valuesBytes)
  values?: Record<string, unknown>;
}
