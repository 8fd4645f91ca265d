import { ProblemError } from '../problem/problem.error';
import { API_VERSION_HEADER, SUPPORTED_API_VERSION } from './api-version';

export class ApiVersionMissingError extends ProblemError {
  constructor() {
    super({
      status: 400,
      code: 'api_version.missing',
      title: 'API version missing',
      detail: `Send the header ${API_VERSION_HEADER}: ${SUPPORTED_API_VERSION}.`,
    });
  }
}

export class ApiVersionUnsupportedError extends ProblemError {
  constructor(requested: string) {
    super({
      status: 400,
      code: 'api_version.unsupported',
      title: 'API version not supported',
      detail: `API version "${requested.slice(0, 32)}" is not supported; the supported version is ${SUPPORTED_API_VERSION}.`,
    });
  }
}
