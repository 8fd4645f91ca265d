import { currentContext } from '@comanda/context';
import type { DynamicModule } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream, Logger as PinoInstance } from 'pino';

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'client_secret',
  '*.client_secret',
  '*.*.client_secret',
  'clientSecret',
  '*.clientSecret',
  '*.*.clientSecret',
];

// Orchestrators probe these every few seconds: a line per probe would bury everything else.
// Nest's Fastify middleware strips the mount path from `url`; `originalUrl` keeps it.
function isHealthProbe(request: IncomingMessage & { originalUrl?: string }): boolean {
  return (request.originalUrl ?? request.url ?? '').startsWith('/health/');
}

const boundRequestIds = new WeakMap<PinoInstance, boolean>();

/** Lines logged outside a request logger (services, message handlers) still get the id. */
function requestIdMixin(_merge: object, _level: number, logger: PinoInstance): object {
  const context = currentContext();
  if (!context) return {};
  let bound = boundRequestIds.get(logger);
  if (bound === undefined) {
    bound = 'requestId' in logger.bindings();
    boundRequestIds.set(logger, bound);
  }
  return bound ? {} : { requestId: context.requestId };
}

/** JSON logs on stdout: one line per event with `service` and `requestId`, secrets redacted. */
export function loggingModule(
  serviceName: string,
  level: string,
  destination?: DestinationStream,
): DynamicModule {
  const options = {
    level,
    base: { service: serviceName },
    messageKey: 'msg',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin: requestIdMixin,
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'requestId' },
    // Fastify already chose the id (the caller's sane X-Request-Id or a new one).
    genReqId: (request: IncomingMessage & { id?: unknown }) =>
      typeof request.id === 'string' ? request.id : (currentContext()?.requestId ?? 'unknown'),
    autoLogging: { ignore: isHealthProbe },
  };
  return LoggerModule.forRoot({ pinoHttp: destination ? [options, destination] : options });
}
