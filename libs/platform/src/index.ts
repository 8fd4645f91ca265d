export { ensureAdminCredentials } from './admin-credentials';
export type { AdminCredentials } from './admin-credentials';
export { freePort, startEmbeddedPostgres } from './embedded-postgres';
export type { EmbeddedPostgres } from './embedded-postgres';
export { PLATFORM_SERVICES } from './services';
export { serviceUrlVariable, startPlatform } from './start-platform';
export type { PlatformOptions, RunningPlatform } from './start-platform';
