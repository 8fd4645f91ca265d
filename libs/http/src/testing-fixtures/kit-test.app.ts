import { currentContext } from '@comanda/context';
import {
  Body,
  Controller,
  Get,
  Injectable,
  Logger,
  Module,
  type MiddlewareConsumer,
  type NestModule,
  Post,
  NotFoundException,
  Param,
  Req,
  Res,
  ServiceUnavailableException,
  UnauthorizedException,
  UseGuards,
  type CanActivate,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsInt, IsString, Min, ValidateNested } from 'class-validator';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DestinationStream } from 'pino';
import { configureHttpApp } from '../configure-http-app';
import {
  createFastifyAdapter,
  type FastifyAdapterOptions,
} from '../fastify/create-fastify-adapter';
import { loggingModule, ServiceLogger } from '../logging/logging.module';
import { markForwarded, markUpstreamAnswer } from '../logging/request-logging';
import { ProblemError } from '../problem/problem.error';
import { BodyRefusalToHandler, RefusedBody } from '../fastify/refused-body';

class ModifierDto {
  @IsString()
  name!: string;
}

class LineDto {
  @IsString()
  sku!: string;

  @IsInt()
  @Min(1)
  quantity!: number;

  @ValidateNested({ each: true })
  @Type(() => ModifierDto)
  modifiers: ModifierDto[] = [];
}

class CustomerDto {
  @IsString()
  name!: string;
}

class CreateOrderDto {
  @ValidateNested()
  @Type(() => CustomerDto)
  customer!: CustomerDto;

  @ValidateNested({ each: true })
  @ArrayMinSize(1)
  @Type(() => LineDto)
  lines!: LineDto[];
}

export class KitchenClosedError extends ProblemError {
  constructor() {
    super({
      status: 503,
      code: 'kitchen.closed',
      title: 'Kitchen closed',
      detail: 'The kitchen takes orders again at 18:00.',
      headers: { 'Retry-After': '120' },
    });
  }
}

/** A service's own error, which knows nothing of HTTP: `domainProblems` maps it. */
export class OvenBusyError extends Error {
  constructor(readonly oven: string) {
    super(`Oven ${oven} is busy.`);
  }
}

function kitDomainProblems(error: unknown): ProblemError | undefined {
  if (!(error instanceof OvenBusyError)) return undefined;
  return new ProblemError({
    status: 409,
    code: 'oven.busy',
    title: 'Oven busy',
    detail: error.message,
  });
}

/** Fails the request when the context is not there yet: guards run before pipes and handlers. */
@Injectable()
class ContextRequiredGuard implements CanActivate {
  canActivate(): boolean {
    if (!currentContext()) throw new Error('no request context in guard');
    return true;
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

@Controller()
class KitTestController {
  private readonly logger = new Logger('KitTestController');

  @Post('orders')
  createOrder(@Body() order: CreateOrderDto) {
    return { lines: order.lines.length, isDto: order instanceof CreateOrderDto };
  }

  @Get('boom')
  boom(): never {
    throw new Error('secret detail');
  }

  /** The database refused the connection (as pg reports it), here and in the configuration group. */
  @Get(['unavailable', 'entities/:entity/unavailable'])
  unavailable(): never {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  }

  /** A rate limit where the path lists no 429: the partner's event receiver answers it 500. */
  @Get('notifications/merchants/:merchantId/limited')
  limited(): never {
    throw new ProblemError({
      status: 429,
      code: 'request.rate_limited',
      title: 'Too many requests',
      detail: 'Too many requests.',
      headers: { 'Retry-After': '1' },
    });
  }

  /** What the gateway does with an upstream's 500 over HTTP: passes it on, marked as the upstream's. */
  @Get('forwarded/failure')
  forwardedFailure(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    markForwarded(request, 'orders');
    markUpstreamAnswer(request);
    void reply.status(500).type('application/problem+json').send('{"status":500}');
  }

  @Get('kitchen')
  kitchen(): never {
    throw new KitchenClosedError();
  }

  @Get('oven')
  async oven(): Promise<never> {
    await tick();
    throw new OvenBusyError('left');
  }

  @Get('tables/:table/bill')
  bill(@Param('table') table: string) {
    return { table };
  }

  @Get('orders/missing')
  missingOrder(): never {
    throw new NotFoundException('Order 123 does not exist.');
  }

  @Get('private')
  private(): never {
    throw new UnauthorizedException();
  }

  @Get('database-down')
  databaseDown(): never {
    throw new ServiceUnavailableException('connection to 10.0.0.7:5432 refused');
  }

  @Get('context')
  @UseGuards(ContextRequiredGuard)
  async contextOnGet() {
    await tick();
    this.logger.log('reading context');
    return currentContext() ?? null;
  }

  @Post('context')
  @UseGuards(ContextRequiredGuard)
  async contextOnPost(@Body() _body: unknown) {
    await tick();
    return currentContext() ?? null;
  }

  @Post('token')
  token(@Body() form: Record<string, string>) {
    this.logger.log({ form }, 'token request');
    return { ok: true };
  }

  @Post('text')
  text(@Body() body: unknown) {
    return { type: typeof body, body };
  }

  /** Says what reached it: a body the parser refused comes as the problem it would have been. */
  @Post('judged')
  @BodyRefusalToHandler()
  judged(@Body() body: unknown) {
    if (!(body instanceof RefusedBody)) return { refused: false, body };
    const { status, code } = body.error as ProblemError;
    return { refused: true, status, code };
  }

  @Get('health/live')
  live() {
    return { status: 'ok' };
  }

  @Get('public/ping')
  ping() {
    return { pong: true };
  }
}

export interface KitTestAppOptions extends FastifyAdapterOptions {
  logDestination?: DestinationStream;
  /** Runs after configureHttpApp, before listen: register Fastify plugins here. */
  beforeListen?: (app: NestFastifyApplication) => Promise<void>;
}

/** A small service on the real Fastify adapter with the HTTP kit, listening on a free port. */
export async function startKitTestApp(options: KitTestAppOptions = {}): Promise<{
  app: NestFastifyApplication;
  url: string;
}> {
  @Module({
    imports: options.logDestination
      ? [loggingModule('kit-test', 'info', options.logDestination)]
      : [],
    controllers: [KitTestController],
  })
  class KitTestModule implements NestModule {
    configure(consumer: MiddlewareConsumer): void {
      consumer
        .apply((request: IncomingMessage, response: ServerResponse, next: () => void) => {
          response.setHeader('x-context-in-middleware', currentContext()?.requestId ?? 'none');
          if (request.headers['x-fail-in-middleware']) {
            throw new ProblemError({
              status: 403,
              code: 'test.refused_in_middleware',
              title: 'Refused',
            });
          }
          next();
        })
        .forRoutes('*path');
    }
  }

  const app = await NestFactory.create<NestFastifyApplication>(
    KitTestModule,
    createFastifyAdapter(options),
    {
      logger: options.logDestination ? undefined : false,
      bufferLogs: Boolean(options.logDestination),
    },
  );
  const logger = options.logDestination ? app.get(ServiceLogger) : undefined;
  if (logger) app.useLogger(logger);
  configureHttpApp(app, {
    serviceName: 'kit-test',
    versionExemptPaths: ['/public/'],
    logger,
    domainProblems: kitDomainProblems,
  });
  await options.beforeListen?.(app);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  if (!address || typeof address !== 'object') throw new Error('test app is not listening');
  return { app, url: `http://127.0.0.1:${address.port}` };
}
