import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import type { RuntimeEnv } from '../service-definition';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads a typed, validated config class from an environment snapshot, once, at boot.
 * Properties are environment variable names; class-validator decorators say what is valid
 * and initializers give the defaults that make standalone mode work with nothing set.
 */
export function loadConfig<T extends object>(type: new () => T, env: RuntimeEnv): T {
  const defaults = new type() as Record<string, unknown>;
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(defaults)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const config = plainToInstance(type, { ...defaults, ...raw }, { enableImplicitConversion: true });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: true });
  if (errors.length > 0) throw new ConfigError(errors.flatMap(describe));
  return Object.freeze(config);
}

function describe(error: ValidationError): string[] {
  const own = Object.values(error.constraints ?? {}).map(
    (message) => `${error.property}=${JSON.stringify(error.value)}: ${message}`,
  );
  return [...own, ...(error.children ?? []).flatMap(describe)];
}

/** The one place the process environment is read: a frozen copy taken at boot. */
export function snapshotEnv(): RuntimeEnv {
  return Object.freeze({ ...process.env });
}
