import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { IsOmittable } from '@comanda/http';
import { TENANT_ID_PATTERN } from '@comanda/security';
import { SINGLE_LINE_TEXT, singleLineMessage } from '../text.patterns';

export class CreateTenantDto {
  /** Slug: lower-case letters, digits and dashes. */
  @Matches(TENANT_ID_PATTERN, {
    message: 'id must be a slug of lower-case letters, digits and dashes',
  })
  id!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(SINGLE_LINE_TEXT, { message: singleLineMessage('name') })
  name!: string;

  /** The tenant's own token host, without scheme or path. */
  @IsOmittable()
  @Matches(
    /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i,
    {
      message: 'issuerHost must be a host name',
    },
  )
  issuerHost?: string;
}
