export { ensureAdminCredentials } from './admin-credentials';
export type { AdminCredentials } from './admin-credentials';
export { startEmbeddedPostgres, SHARED_DIR, SYSTEM_USER } from './embedded-postgres';
export { freePort } from './free-port';
export type { EmbeddedPostgres, EmbeddedPostgresOptions } from './embedded-postgres';
export { PLATFORM_SERVICES } from './services';
export { serviceUrlVariable, startPlatform } from './start-platform';
export type { PlatformOptions, RunningPlatform } from './start-platform';
export { StartupError } from './startup-error';
