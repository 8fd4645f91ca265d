import type { ProblemFieldError } from '@comanda/http';
import {
  describeJsonType,
  matchesParameterType,
  type ManifestParameter,
} from '../manifest/manifest-parameter';

/**
 * Checks a config object against the parameters of the manifest of the version it names.
 * A required parameter is satisfied by its default when the manifest gives one. Members
 * the manifest does not declare are kept: a config may carry settings for another version
 * it is switched back to.
 */
export function checkConfigAgainstParameters(
  config: Readonly<Record<string, unknown>>,
  parameters: readonly ManifestParameter[],
): ProblemFieldError[] {
  const errors: ProblemFieldError[] = [];
  for (const parameter of parameters) {
    const path = `config.${parameter.name}`;
    const value = Object.prototype.hasOwnProperty.call(config, parameter.name)
      ? config[parameter.name]
      : undefined;
    if (value === undefined) {
      if (parameter.required && parameter.default === undefined) {
        errors.push({ path, message: `${parameter.name} is required (${parameter.type})` });
      }
      continue;
    }
    if (!matchesParameterType(value, parameter.type)) {
      errors.push({
        path,
        message: `${parameter.name} must be of type ${parameter.type}, got ${describeJsonType(value)}`,
      });
    }
  }
  return errors;
}
