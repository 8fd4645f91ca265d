export { authService, AUTH_ENTITIES, AUTH_MIGRATIONS } from './auth.service-definition';
export { AuthConfig } from './auth.config';
export {
  CREDENTIALS_FILE_FORMAT,
  decryptCredentialsFile,
  encryptCredentialsFile,
} from './crypto/credentials-file';
export type { ClientCredentials } from './crypto/credentials-file';
export type { ClientView } from './clients/client.view';
export type { CreatedClient, NewClient } from './clients/client.service';
export type { TokenResponse } from './token/token.service';
