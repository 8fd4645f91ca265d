import type { ProblemFieldError } from '@comanda/http';
import {
  describeJsonType,
  matchesParameterType,
  type ManifestParameter,
  type PluginManifest,
} from './manifest-parameter';

/**
 * What class-validator cannot see in one parameter alone: names must be unique (a config
 * member maps to one parameter) and a default must have the parameter's type.
 */
export function checkManifest(manifest: PluginManifest): ProblemFieldError[] {
  const errors: ProblemFieldError[] = [];
  const seen = new Set<string>();
  manifest.parameters.forEach((parameter, index) => {
    if (seen.has(parameter.name)) {
      errors.push({
        path: `parameters[${index}].name`,
        message: `parameter "${parameter.name}" is declared twice`,
      });
    }
    seen.add(parameter.name);
    if (
      parameter.default !== undefined &&
      !matchesParameterType(parameter.default, parameter.type)
    ) {
      errors.push({
        path: `parameters[${index}].default`,
        message: `default must be of type ${parameter.type}, got ${describeJsonType(parameter.default)}`,
      });
    }
  });
  return errors;
}

/** The manifest as stored and served: only the members it defines, in a stable order. */
export function normalizeManifest(manifest: PluginManifest): PluginManifest {
  return {
    version: manifest.version,
    description: manifest.description,
    parameters: manifest.parameters.map((parameter): ManifestParameter => {
      const normalized: ManifestParameter = {
        name: parameter.name,
        type: parameter.type,
        required: parameter.required,
      };
      if (parameter.default !== undefined) normalized.default = parameter.default;
      if (parameter.description !== undefined) normalized.description = parameter.description;
      return normalized;
    }),
  };
}
