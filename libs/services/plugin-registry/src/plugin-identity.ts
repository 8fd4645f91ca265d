import { ValidateBy, type ValidationOptions } from 'class-validator';
import { valid } from 'semver';

/** A slug: lower-case letters and digits, single dashes between them. It ends up in URLs. */
const PLUGIN_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const PLUGIN_NAME_MAX_LENGTH = 100;
const PLUGIN_VERSION_MAX_LENGTH = 64;

export function isPluginName(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length <= PLUGIN_NAME_MAX_LENGTH && PLUGIN_NAME.test(value)
  );
}

/** Semantic Versioning 2.0 in its canonical form: `1.2.0`, `2.0.0-beta.1`, never `v1.2.0`. */
export function isPluginVersion(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length <= PLUGIN_VERSION_MAX_LENGTH && valid(value) === value
  );
}

export function IsPluginName(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPluginName',
      validator: {
        validate: isPluginName,
        defaultMessage: () =>
          `$property must be a slug of lower-case letters, digits and single dashes (at most ${PLUGIN_NAME_MAX_LENGTH} characters)`,
      },
    },
    options,
  );
}

export function IsPluginVersion(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPluginVersion',
      validator: {
        validate: isPluginVersion,
        defaultMessage: () => '$property must be a semantic version such as 1.4.0 or 2.0.0-beta.1',
      },
    },
    options,
  );
}

/** Event subject of a plugin version: its aggregate is the name and version together. */
export function versionSubject(name: string, version: string): string {
  return `${name}@${version}`;
}
