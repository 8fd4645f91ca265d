import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import type { RuntimeEnv } from '../service-definition';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    // One line, so a start-up failure reads as one clear sentence.
    super(`invalid setting ${problems.join('; ')}`);
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
  if (errors.length > 0) throw new ConfigError(errors.flatMap((error) => describe(error, env)));
  return Object.freeze(config);
}

/** Settings whose values are credentials: never quoted in a log line, however wrong. */
// A token's lifetime or audience is no secret; a token is.
const SECRET_SETTING = /KEY|SECRET|PEPPER|PASSWORD|TOKEN(?!_LIFETIME|_AUDIENCE)/i;

/**
 * The value as the user typed it, for the line that says what is wrong with it: a key or
 * secret only by its length (a real one a character short, or with a stray newline, must not
 * reach the logs), a URL without the password of its user part.
 */
function shown(name: string, typed: unknown): string {
  if (typeof typed !== 'string') return JSON.stringify(typed);
  if (SECRET_SETTING.test(name)) return `<not shown: ${typed.length} characters>`;
  return JSON.stringify(typed.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@'));
}

/** The value as the user typed it, and the first thing wrong with it. */
function describe(error: ValidationError, env: RuntimeEnv): string[] {
  const typed = env[error.property] ?? error.value;
  // Decorators apply bottom-up: the last constraint is the first written (the type check).
  const first = Object.values(error.constraints ?? {}).at(-1);
  const own = first
    ? [
        `${error.property}=${shown(error.property, typed)} (${first.replace(`${error.property} `, '')})`,
      ]
    : [];
  return [...own, ...(error.children ?? []).flatMap((child) => describe(child, env))];
}

/** The one place the process environment is read: a frozen copy taken at boot. */
export function snapshotEnv(): RuntimeEnv {
  return Object.freeze({ ...process.env });
}
