export {
  PERMISSIONS,
  PERMISSION_NAMES,
  PERSONAL_DATA_PERMISSION,
  PLATFORM_TENANT_ID,
  isPermission,
} from './permissions/permission-catalogue';
export type { Permission } from './permissions/permission-catalogue';
export type { Principal } from './principal';
export { RequirePermission } from './decorators/require-permission.decorator';
export { Public } from './decorators/public.decorator';
export { CurrentPrincipal } from './decorators/current-principal.decorator';
export { principalOf } from './guards/principal-of-request';
export { holds } from './guards/access.guard';
export { SecurityModule, SECURITY_SETTINGS } from './security.module';
export type { SecurityModuleOptions } from './security.module';
export {
  DEFAULT_AUDIENCE,
  DEFAULT_PUBLIC_URL,
  deploymentEnvironment,
  issuerOf,
  securitySettingsFrom,
} from './security-settings';
export type { DeploymentEnvironment, EnvSnapshot, SecuritySettings } from './security-settings';
export { BearerTokenVerifier } from './verification/bearer-token.verifier';
export { JWKS_SOURCE } from './verification/jwks-source';
export type { JwksSource } from './verification/jwks-source';
export {
  ACCESS_TOKEN_TYPE,
  ALLOWED_ALGORITHMS,
  TENANT_ID_PATTERN,
} from './verification/token-claims';
export type { AccessTokenClaims } from './verification/token-claims';
export { InsufficientScopeError, InvalidTokenError, MissingTokenError } from './security.errors';
export { REDACTED, redactPersonalData } from './redaction/redact-personal-data';
export { open, seal } from './secrets/sealed-box';
export {
  PREVIOUS_SECRETS_KEY_VARIABLE,
  SECRETS_KEY_VARIABLE,
  SecretBox,
  secretBoxFrom,
} from './secrets/secret-box';
export {
  addPreviousSecretColumns,
  dropPreviousSecretColumns,
  previousSecretColumn,
  previousSecretLabel,
  resealColumn,
  sealPlaintextColumn,
  unsealColumn,
} from './secrets/sealed-columns';
export type { SealedColumn, SqlRunner } from './secrets/sealed-columns';
