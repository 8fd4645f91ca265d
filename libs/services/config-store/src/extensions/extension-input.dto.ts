import { IsIn, IsString, Length } from 'class-validator';
import { IsOmittable } from '@comanda/http';
import { LIMITS } from '../common/limits';
import { IsAddressableId, IsReferenceMap } from '../common/validators';
import type { ExtensionReference } from './extension-reference';
import { AVAILABILITIES, type Availability } from './extension-version.entity';

export class ExtensionInputDto {
  @IsAddressableId()
  id!: string;

  @IsString()
  @Length(1, LIMITS.versionLength)
  version!: string;

  @IsIn(AVAILABILITIES)
  availability!: Availability;

  /** Name of each reference to the reference; absent means none. */
  @IsOmittable()
  @IsReferenceMap()
  extensionReferences?: Record<string, ExtensionReference>;

  /** What the extension extends; the spec outputs it without saying where it comes from. */
  @IsOmittable()
  @IsString()
  @Length(1, LIMITS.idLength)
  baseType?: string;
}
