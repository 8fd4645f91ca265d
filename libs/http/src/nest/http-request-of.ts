import type { ArgumentsHost } from '@nestjs/common';

/**
 * The HTTP request of a guard's or a parameter decorator's context: its first argument,
 * what `switchToHttp().getRequest()` answers. `switchToHttp()` assigns three new closures
 * onto the context at every call, and the guards and the principal decorator of every
 * authenticated route called it on every request (issue 10).
 */
export function httpRequestOf<Request>(context: ArgumentsHost): Request {
  return context.getArgByIndex<Request>(0);
}
