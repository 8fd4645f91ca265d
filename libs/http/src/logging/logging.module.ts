import { currentContext, currentService } from '@comanda/context';
import type { DynamicModule } from '@nestjs/common';
import { Module, type LoggerService } from '@nestjs/common';
import { hostname } from 'node:os';
import pino, {
  type DestinationStream,
  type Level,
  type Logger as PinoInstance,
  type LoggerOptions,
} from 'pino';
import pinoPretty from 'pino-pretty';

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
  ...['secret', 'password', 'token', 'access_token', 'refresh_token', 'authorization'].flatMap(
    (name) => [name, `*.${name}`, `*.*.${name}`],
  ),
  'req.headers["x-api-key"]',
];

/** `pretty`: human-readable lines; `json`: one JSON object a line; `auto`: pretty on a terminal. */
export type LogFormat = 'auto' | 'pretty' | 'json';

// Nest's start-up chatter (a line per module and per route) says nothing a person needs at
// `info`: it is logged at `debug` instead.
const NEST_BOOT_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
  'NestMicroservice',
]);

const boundRequestIds = new WeakMap<PinoInstance, boolean>();

/**
 * Every line names its service, and lines logged outside a request logger (services,
 * message handlers) still get the request id. In standalone mode several services share
 * one process-wide logger: the service comes from the work's scope (`runInService`).
 */
function contextMixin(serviceName: string) {
  return (_merge: object, _level: number, logger: PinoInstance): object => {
    const service = currentService() ?? serviceName;
    const context = currentContext();
    if (!context) return { service };
    let bound = boundRequestIds.get(logger);
    if (bound === undefined) {
      bound = 'requestId' in logger.bindings();
      boundRequestIds.set(logger, bound);
    }
    return bound ? { service } : { service, requestId: context.requestId };
  };
}

let prettyStream: DestinationStream | undefined;
let jsonStream: DestinationStream | undefined;

/**
 * JSON lines on stdout, the lines of one turn of the event loop written together: the first
 * line of a turn schedules one write of all of them at the turn's end (`setImmediate`),
 * through pino's synchronous writer (sonic-boom, which retries a full pipe and gives up on a
 * closed one). Under load one write(2) carries the lines of every request the turn answered;
 * a line alone goes out at once. An asynchronous writer instead handed each line (or two) to
 * libuv's thread pool and back, the request line's largest cost (issue 10; bench/README.md).
 * Lines not yet written when the process exits are written then.
 */
export class TurnBatchedLines {
  private pending = '';
  private scheduled = false;

  constructor(private readonly out: DestinationStream) {
    process.on('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.pending += line;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.endOfTurn);
  }

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    this.flushSync();
  };

  /** Writes what is pending now. */
  flushSync(): void {
    if (this.pending === '') return;
    const lines = this.pending;
    this.pending = '';
    this.out.write(lines);
  }

  flush(callback?: (error?: Error) => void): void {
    this.flushSync();
    callback?.();
  }
}

/**
 * The destination for a format: one shared pretty printer per process, or one JSON writer
 * on stdout for every service of the process (a single writer keeps lines whole and in
 * order), its lines written once per turn of the event loop ({@link TurnBatchedLines}).
 */
export function logDestination(format: LogFormat): DestinationStream {
  const pretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!pretty) {
    jsonStream ??= new TurnBatchedLines(pino.destination({ dest: 1, sync: true }));
    return jsonStream;
  }
  prettyStream ??= pinoPretty({
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,service,context,req,res,responseTime',
    // `gateway: listening…`, or `auth (OutboxRelay): …` when a class logs under its own name.
    messageFormat: (line: Record<string, unknown>, messageKey: string) => {
      const { service, context } = line;
      const from =
        context && context !== service
          ? `${String(service)} (${String(context)})`
          : String(service);
      return `${from}: ${String(line[messageKey])}`;
    },
    hideObject: false,
  });
  return prettyStream;
}

function loggerOptions(serviceName: string, level: string): LoggerOptions {
  return {
    level,
    messageKey: 'msg',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin: contextMixin(serviceName),
    hooks: {
      logMethod(args, method, callLevel) {
        const first = args[0] as { context?: unknown } | undefined;
        const boot =
          callLevel === 30 &&
          typeof first === 'object' &&
          first !== null &&
          typeof first.context === 'string' &&
          NEST_BOOT_CONTEXTS.has(first.context);
        if (boot && !this.isLevelEnabled('debug')) return;
        method.apply(this, args as Parameters<typeof method>);
      },
    },
  };
}

/** A logger outside Nest (the standalone launcher), in the same format as the services. */
export function createLogger(
  serviceName: string,
  level: string,
  format: LogFormat,
  destination: DestinationStream = logDestination(format),
): PinoInstance {
  return pino(loggerOptions(serviceName, level), destination);
}

/**
 * The logger of one service: Nest's `LoggerService` over pino (`app.useLogger(...)`), mapping
 * Nest's calls as nestjs-pino did: the last extra argument is the `context`, an object message
 * is merged into the line, an `Error` becomes `err`, and Nest's exception handlers'
 * `error(message, stack)` becomes an `err` with that stack.
 */
export class ServiceLogger implements LoggerService {
  constructor(
    /** Lines of the service, secrets redacted by name. */
    readonly pino: PinoInstance,
    /** One line per request (see `installRequestLogging`); no redaction pass of its own. */
    readonly requests: RequestLines,
    readonly serviceName: string,
  ) {}

  verbose(message: unknown, ...params: unknown[]): void {
    this.call('trace', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.call('debug', message, params);
  }
  log(message: unknown, ...params: unknown[]): void {
    this.call('info', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.call('warn', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.call('error', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.call('fatal', message, params);
  }

  private call(level: Level, message: unknown, optional: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    let params = optional;
    if (optional.length > 0) {
      fields.context = optional[optional.length - 1];
      params = optional.slice(0, -1);
    }
    const log = this.pino[level].bind(this.pino) as (...args: unknown[]) => void;
    if (typeof message === 'object' && message !== null) {
      if (message instanceof Error) fields.err = message;
      else Object.assign(fields, message);
      log(fields, ...params);
    } else if (
      level === 'error' &&
      typeof message === 'string' &&
      params.length === 1 &&
      typeof params[0] === 'string' &&
      /\n\s*at /.test(params[0])
    ) {
      const err = new Error(message);
      err.stack = params[0];
      log({ ...fields, err });
    } else {
      log(fields, message, ...params);
    }
  }
}

/**
 * The request lines of a service, in the shape pino gives every other line (`level`, `time`,
 * `pid`, `hostname`, the fields, `msg`), built by one native `JSON.stringify` of fields the
 * caller has already redacted: the line every request pays for needs no generic logger.
 */
export class RequestLines {
  private readonly threshold: number;
  private static readonly origin = `"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

  constructor(
    private readonly stream: DestinationStream,
    level: string,
  ) {
    this.threshold = pino.levels.values[level] ?? pino.levels.values.info;
  }

  isLevelEnabled(level: 'info' | 'warn' | 'error'): boolean {
    return pino.levels.values[level] >= this.threshold;
  }

  /**
   * Writes one line; `members` is the JSON text of the line's own fields without the braces
   * (`"a":1,"b":"x"`, or empty), written by the caller with their values redacted.
   */
  write(level: 'info' | 'warn' | 'error', members: string, msg: string): void {
    this.stream.write(
      `{"level":${pino.levels.values[level]},"time":${Date.now()},${RequestLines.origin},${members}${members === '' ? '' : ','}"msg":${JSON.stringify(msg)}}\n`,
    );
  }
}

/** Logs on stdout, one line per event with `service` and `requestId`, secrets redacted. */
export function loggingModule(
  serviceName: string,
  level: string,
  destination?: DestinationStream,
  format: LogFormat = 'json',
): DynamicModule {
  const stream = destination ?? logDestination(format);
  const logger = new ServiceLogger(
    pino(loggerOptions(serviceName, level), stream),
    new RequestLines(stream, level),
    serviceName,
  );
  return {
    module: LoggingModule,
    global: true,
    providers: [{ provide: ServiceLogger, useValue: logger }],
    exports: [ServiceLogger],
  };
}

@Module({})
class LoggingModule {}
