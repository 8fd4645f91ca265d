import { ProblemError, type ProblemFieldError } from '@comanda/http';

/** The code does not parse as an ES module default-exporting a function. */
export class InvalidPluginCodeError extends ProblemError {
  constructor(reason: string, line: number, column: number) {
    super({
      status: 422,
      code: 'plugin.invalid_code',
      title: 'Invalid plugin code',
      detail: `The plugin code is not an ES module that default-exports a function: ${reason} (line ${line}, column ${column}).`,
      errors: [{ path: `code:${line}:${column}`, message: reason }],
    });
  }
}

/** The check of the code gave up: the code is refused, not stored unchecked. */
export class PluginCodeUncheckableError extends ProblemError {
  constructor(reason: string) {
    super({
      status: 422,
      code: 'plugin.code_too_complex',
      title: 'Plugin code too complex to check',
      detail: `The plugin code could not be checked: ${reason}. Split or simplify the module.`,
    });
  }
}

/** Every thread that checks uploaded code is busy and its queue is full. */
export class PluginCodeCheckBusyError extends ProblemError {
  constructor() {
    super({
      status: 503,
      code: 'service.unavailable',
      title: 'Plugin code checks busy',
      detail: 'Too many plugin code uploads are being checked; try again shortly.',
      headers: { 'Retry-After': '2' },
    });
  }
}

export class PluginCodeTooLargeError extends ProblemError {
  constructor(size: number, limit: number) {
    super({
      status: 413,
      code: 'request.too_large',
      title: 'Plugin code too large',
      detail: `The plugin code has ${size} bytes; the limit is ${limit} bytes.`,
    });
  }
}

export class PluginCodeMediaTypeError extends ProblemError {
  constructor(contentType: string | undefined) {
    super({
      status: 415,
      code: 'request.unsupported_media_type',
      title: 'Unsupported media type',
      detail: `Plugin code is uploaded as text/plain, not "${contentType ?? '(none)'}".`,
    });
  }
}

export class PluginNotFoundError extends ProblemError {
  constructor(name: string) {
    super({
      status: 404,
      code: 'plugin.not_found',
      title: 'Plugin not found',
      detail: `There is no plugin named "${name}".`,
    });
  }
}

export class PluginVersionNotFoundError extends ProblemError {
  constructor(name: string, version: string) {
    super({
      status: 404,
      code: 'plugin.version_not_found',
      title: 'Plugin version not found',
      detail: `Plugin "${name}" has no version ${version}.`,
    });
  }
}

export class PluginManifestNotFoundError extends ProblemError {
  constructor(name: string, version: string) {
    super({
      status: 404,
      code: 'plugin.manifest_not_found',
      title: 'Plugin manifest not found',
      detail: `Version ${version} of plugin "${name}" has no manifest yet.`,
    });
  }
}

/** A manifest describes uploaded code: the code of its version comes first. */
export class PluginCodeMissingError extends ProblemError {
  constructor(name: string, version: string) {
    super({
      status: 422,
      code: 'plugin.code_missing',
      title: 'Plugin code missing',
      detail: `Upload the code of version ${version} of plugin "${name}" before its manifest.`,
    });
  }
}

export class InvalidPluginManifestError extends ProblemError {
  constructor(errors: ProblemFieldError[]) {
    super({
      status: 422,
      code: 'plugin.invalid_manifest',
      title: 'Invalid plugin manifest',
      detail: 'The manifest parameters are inconsistent; see errors.',
      errors,
    });
  }
}

/** A config may only name a version the frontend can load: code and manifest both uploaded. */
export class PluginVersionNotReadyError extends ProblemError {
  constructor(name: string, version: string, missing: Array<'code' | 'manifest'>) {
    super({
      status: 422,
      code: 'plugin.version_not_ready',
      title: 'Plugin version not ready',
      detail: `Version ${version} of plugin "${name}" has no ${missing.join(' and no ')}; upload ${missing.join(' and ')} before switching a config to it.`,
    });
  }
}

export class PluginConfigNotFoundError extends ProblemError {
  constructor(id: string) {
    super({
      status: 404,
      code: 'plugin.config_not_found',
      title: 'Plugin config not found',
      detail: `There is no plugin config with id "${id}".`,
    });
  }
}

/** The `config` object does not satisfy the parameters of the manifest of its version. */
export class PluginConfigInvalidError extends ProblemError {
  constructor(name: string, version: string, errors: ProblemFieldError[]) {
    super({
      status: 422,
      code: 'plugin.config_invalid',
      title: 'Plugin config does not match the manifest',
      detail: `The config does not satisfy the parameters of version ${version} of plugin "${name}"; see errors.`,
      errors,
    });
  }
}
