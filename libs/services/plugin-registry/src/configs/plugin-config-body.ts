import { RequestValidationError, type ProblemFieldError } from '@comanda/http';
import { isPluginName, isPluginVersion } from '../plugin-identity';

/** A plugin config as a client sends it: the three known members plus any further ones. */
export interface PluginConfigInput {
  name: string;
  version: string;
  config: Record<string, unknown>;
  /** Members beyond name, version and config: stored and returned as they came. */
  extra: Record<string, unknown>;
}

/**
 * Members the service sets itself. A client that reads a config, changes it and puts it
 * back sends them along; they are ignored rather than refused.
 */
const SERVER_MEMBERS = new Set(['id', 'createdAt', 'updatedAt']);

/**
 * `config` and the further members together, as JSON: what the config store allows a
 * config's `values`. A list page of 100 configs then stays within 25 MiB.
 */
export const PLUGIN_CONFIG_MAX_BYTES = 256 * 1024;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The body of a plugin config create or update. Not a class-validator DTO: the global pipe
 * forbids unknown members, and the spec lets a plugin config carry further members.
 */
export function parsePluginConfigBody(body: unknown): PluginConfigInput {
  if (!isPlainObject(body)) {
    throw new RequestValidationError([{ path: '', message: 'the body must be a JSON object' }]);
  }
  const errors: ProblemFieldError[] = [];
  const { name, version, config, ...rest } = body;
  if (!isPluginName(name)) {
    errors.push({
      path: 'name',
      message: 'name must be a plugin name: a slug of lower-case letters, digits and dashes',
    });
  }
  if (!isPluginVersion(version)) {
    errors.push({ path: 'version', message: 'version must be a semantic version such as 1.4.0' });
  }
  if (!isPlainObject(config)) {
    errors.push({ path: 'config', message: 'config must be an object' });
  }
  if (errors.length > 0) throw new RequestValidationError(errors);
  const extra = Object.fromEntries(
    Object.entries(rest).filter(([key]) => !SERVER_MEMBERS.has(key)),
  );
  const bytes = Buffer.byteLength(JSON.stringify({ config, extra }), 'utf8');
  if (bytes > PLUGIN_CONFIG_MAX_BYTES) {
    throw new RequestValidationError([
      {
        path: 'config',
        message: `config and the further members must be at most ${PLUGIN_CONFIG_MAX_BYTES} bytes of JSON together (${bytes} given)`,
      },
    ]);
  }
  return {
    name: name as string,
    version: version as string,
    config: config as Record<string, unknown>,
    extra,
  };
}
