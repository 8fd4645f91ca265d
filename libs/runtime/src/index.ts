export { ConfigError, loadConfig, snapshotEnv } from './config/load-config';
export { RuntimeConfig } from './config/runtime.config';
export { runServiceMain } from './run-service-main';
export { onShutdownSignal } from './shutdown';
export { RUNTIME_ENV, schemaMigrations, SERVICE_NAME } from './service-definition';
export type {
  RunningService,
  RuntimeEnv,
  ServiceDefinition,
  StartOptions,
} from './service-definition';
export { checkServiceSettings, startService } from './start-service';
export {
  connectLocally,
  localRequestHandler,
  registerLocalListener,
} from './in-process/local-listeners';
export { sealColumnMigration, sealedSecretsProviders } from './secrets/sealed-secrets';
export type { SealedSecrets } from './secrets/sealed-secrets';
export { ensurePortFree } from './port';
export { READINESS_CHECK } from './health/readiness-check';
export type { ReadinessCheck } from './health/readiness-check';
export { METRICS_SOURCE } from './metrics/merge-expositions';
export type { MetricsSource } from './metrics/merge-expositions';
export { installEarlyLogger } from './early-logger';
