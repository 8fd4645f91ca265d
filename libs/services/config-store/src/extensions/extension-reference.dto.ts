import { IsString, Length } from 'class-validator';
import { LIMITS } from '../common/limits';

export class ExtensionReferenceDto {
  @IsString()
  @Length(1, LIMITS.idLength)
  publisher!: string;

  @IsString()
  @Length(1, LIMITS.idLength)
  dataId!: string;

  @IsString()
  @Length(1, LIMITS.versionLength)
  version!: string;
}
