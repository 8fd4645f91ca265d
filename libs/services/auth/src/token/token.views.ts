import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OAuth 2.0 token response (RFC 6749 §5.1). */
export class TokenResponseView {
  @ApiProperty({ description: 'JWT (RFC 9068)' }) access_token!: string;
  @ApiProperty({ type: 'integer', example: 3600 }) expires_in!: number;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: 'Bearer';
  @ApiProperty({ description: 'Space-separated permissions granted' }) scope!: string;
}

/** One public signing key (RFC 7517), an EC P-256 key. */
export class JsonWebKeyView {
  @ApiProperty({ example: 'EC' }) kty!: string;
  @ApiProperty() kid!: string;
  @ApiPropertyOptional({ example: 'ES256' }) alg?: string;
  @ApiPropertyOptional({ example: 'sig' }) use?: string;
  @ApiPropertyOptional({ example: 'P-256' }) crv?: string;
  @ApiPropertyOptional() x?: string;
  @ApiPropertyOptional() y?: string;
}

/** The tenant's public keys: the signing one, the next one and recently retired ones. */
export class JsonWebKeySetView {
  @ApiProperty({ type: [JsonWebKeyView] }) keys!: JsonWebKeyView[];
}

/** OpenID Provider / RFC 8414 metadata of one tenant's issuer. */
export class DiscoveryDocumentView {
  @ApiProperty() issuer!: string;
  @ApiProperty() token_endpoint!: string;
  @ApiProperty() jwks_uri!: string;
  @ApiProperty({ type: [String] }) grant_types_supported!: string[];
  @ApiProperty({ type: [String] }) response_types_supported!: string[];
  @ApiProperty({ type: [String] }) token_endpoint_auth_methods_supported!: string[];
  @ApiProperty({ type: [String] }) token_endpoint_auth_signing_alg_values_supported!: string[];
  @ApiProperty({ type: [String] }) scopes_supported!: string[];
  @ApiProperty({ type: [String] }) subject_types_supported!: string[];
  @ApiProperty({ type: [String] }) id_token_signing_alg_values_supported!: string[];
}
