import { RequestValidationError } from '@comanda/http';

/** A path, query or header value the service checks itself (the DTO pipe covers bodies). */
export function invalidParameter(path: string, message: string): RequestValidationError {
  return new RequestValidationError([{ path, message }]);
}
