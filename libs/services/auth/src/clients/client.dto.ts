import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsOmittable } from '@comanda/http';
import { PERMISSION_NAMES, TENANT_ID_PATTERN, type Permission } from '@comanda/security';
import { SINGLE_LINE_TEXT, singleLineMessage, TEXT_WITHOUT_NUL } from '../text.patterns';
import { MAX_GRACE_PERIOD_SECONDS } from './client.service';

export class ContactsDto {
  /** E-mail, phone or another channel of an authorised person of the customer. */
  @IsString()
  @MinLength(3)
  @MaxLength(320)
  @Matches(SINGLE_LINE_TEXT, { message: singleLineMessage('contacts.primary') })
  primary!: string;

  /** A different channel: the credentials file and its passphrase travel separately. */
  @IsString()
  @MinLength(3)
  @MaxLength(320)
  @Matches(SINGLE_LINE_TEXT, { message: singleLineMessage('contacts.secondary') })
  secondary!: string;
}

export class CreateClientDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(SINGLE_LINE_TEXT, { message: singleLineMessage('name') })
  name!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @Matches(TENANT_ID_PATTERN, { each: true, message: 'each tenant id must be a slug' })
  tenantIds!: string[];

  @IsIn(['test', 'production'])
  environment!: 'test' | 'production';

  @IsArray()
  @ArrayUnique()
  @IsIn(PERMISSION_NAMES, {
    each: true,
    message: `each permission must be one of: ${PERMISSION_NAMES.join(', ')}`,
  })
  permissions!: Permission[];

  @IsBoolean()
  personalData!: boolean;

  @IsObject()
  @ValidateNested()
  @Type(() => ContactsDto)
  contacts!: ContactsDto;

  @IsString()
  @MinLength(1)
  @MaxLength(2000)
  @Matches(TEXT_WITHOUT_NUL, { message: 'useCase must not contain a NUL character' })
  useCase!: string;

  /** Hand the credentials out as an encrypted file plus a passphrase, not in clear. */
  @IsOmittable()
  @IsBoolean()
  credentialsFile?: boolean;
}

export class GrantPermissionsDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(PERMISSION_NAMES, {
    each: true,
    message: `each permission must be one of: ${PERMISSION_NAMES.join(', ')}`,
  })
  permissions!: Permission[];
}

export class RotateSecretDto {
  /** How long the secrets that work now keep working (default 0: they stop at once). */
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(MAX_GRACE_PERIOD_SECONDS)
  gracePeriodSeconds?: number;
}
