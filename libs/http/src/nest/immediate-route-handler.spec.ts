import {
  Controller,
  ForbiddenException,
  Get,
  Header,
  HttpCode,
  Injectable,
  NotFoundException,
  Param,
  ParseIntPipe,
  Post,
  Res,
  UseGuards,
  UseInterceptors,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { map, of, type Observable } from 'rxjs';
import { configureHttpApp } from '../configure-http-app';
import { createFastifyAdapter } from '../fastify/create-fastify-adapter';

let handled: string[] = [];

const CHUNK = 'x'.repeat(10_000);

async function* slowChunks(): AsyncGenerator<string> {
  for (let at = 0; at < 30; at += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    yield CHUNK;
  }
}

@Injectable()
class LaterGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve));
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    return request.headers['x-allowed'] === 'yes';
  }
}

@Injectable()
class Wrapping implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((value) => ({ wrapped: value })));
  }
}

@Controller('counter')
class CounterController {
  @Get('plain')
  plain() {
    handled.push('plain');
    return { answer: 'plain' };
  }

  @Get('later')
  async later() {
    await new Promise((resolve) => setImmediate(resolve));
    handled.push('later');
    return { answer: 'later' };
  }

  @Post('made')
  @HttpCode(201)
  @Header('x-kitchen', 'open')
  made() {
    return { answer: 'made' };
  }

  @Get('text')
  text() {
    return 'a string';
  }

  @Get('nothing')
  @HttpCode(204)
  nothing(): void {
    handled.push('nothing');
  }

  @Get('throws')
  throws() {
    throw new NotFoundException('no such dish');
  }

  @Get('rejects')
  async rejects() {
    await new Promise((resolve) => setImmediate(resolve));
    throw new ForbiddenException('not for you');
  }

  @Get('crashes')
  crashes() {
    throw new Error('a bug');
  }

  @Get('number/:n')
  number(@Param('n', ParseIntPipe) n: number) {
    handled.push(`number ${n}`);
    return { n };
  }

  @Get('guarded')
  @UseGuards(LaterGuard)
  guarded() {
    handled.push('guarded');
    return { answer: 'guarded' };
  }

  @Get('own-reply')
  ownReply(@Res() reply: FastifyReply) {
    void reply.status(202).header('x-own', 'yes').send({ answer: 'own' });
  }

  // As the gateway serves its Swagger UI assets: the handler returns the reply itself, whose
  // `then` settles when the stream has been sent and returns no promise.
  @Get('own-stream')
  ownStream(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('text/plain').send(Readable.from(slowChunks()));
  }

  @Get('passthrough')
  passthrough(@Res({ passthrough: true }) reply: FastifyReply) {
    void reply.header('x-through', 'yes');
    return { answer: 'passthrough' };
  }

  @Get('stream')
  stream() {
    return of({ answer: 'observable' });
  }

  @Get('intercepted')
  @UseInterceptors(Wrapping)
  intercepted() {
    return { answer: 'intercepted' };
  }
}

@Module({ controllers: [CounterController], providers: [LaterGuard, Wrapping] })
class CounterModule {}

describe('route handlers that answer at once (immediate route handler)', () => {
  let app: NestFastifyApplication;
  let intercept: jest.SpyInstance;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(CounterModule, createFastifyAdapter(), {
      logger: false,
    });
    configureHttpApp(app, { serviceName: 'kit-test', versionExemptPaths: ['/counter/'] });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());
  beforeEach(() => {
    handled = [];
    intercept = jest.spyOn(InterceptorsConsumer.prototype, 'intercept');
  });
  afterEach(() => intercept.mockRestore());

  const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}) =>
    app.inject({ method, url, headers });

  it('answers a value and a promise of one with 200 and JSON, without Nest’s interceptor chain', async () => {
    for (const route of ['plain', 'later']) {
      const response = await call('GET', `/counter/${route}`);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual({ answer: route });
    }
    expect(handled).toEqual(['plain', 'later']);
    expect(intercept).not.toHaveBeenCalled();
  });

  it('keeps @HttpCode and @Header, a plain string body, and an empty 204', async () => {
    const made = await call('POST', '/counter/made');
    expect(made.statusCode).toBe(201);
    expect(made.headers['x-kitchen']).toBe('open');
    expect(made.json()).toEqual({ answer: 'made' });

    const text = await call('GET', '/counter/text');
    expect(text.statusCode).toBe(200);
    expect(text.body).toBe('a string');

    const nothing = await call('GET', '/counter/nothing');
    expect(nothing.statusCode).toBe(204);
    expect(nothing.body).toBe('');
    expect(handled).toEqual(['nothing']);
  });

  it('hands a thrown error, a rejection and a bug to the exception filters (problem+json)', async () => {
    const thrown = await call('GET', '/counter/throws');
    expect(thrown.statusCode).toBe(404);
    expect(thrown.headers['content-type']).toMatch(/^application\/problem\+json/);

    const rejected = await call('GET', '/counter/rejects');
    expect(rejected.statusCode).toBe(403);
    expect(rejected.headers['content-type']).toMatch(/^application\/problem\+json/);

    const bug = await call('GET', '/counter/crashes');
    expect(bug.statusCode).toBe(500);
    expect(bug.body).not.toContain('a bug');
  });

  it('runs the pipes before the handler, and not the handler when a pipe refuses', async () => {
    expect((await call('GET', '/counter/number/7')).json()).toEqual({ n: 7 });
    const refused = await call('GET', '/counter/number/seven');
    expect(refused.statusCode).toBe(400);
    expect(handled).toEqual(['number 7']);
  });

  it('awaits a guard that answers later, and runs no handler when it says no', async () => {
    const allowed = await call('GET', '/counter/guarded', { 'x-allowed': 'yes' });
    expect(allowed.statusCode).toBe(200);
    const refused = await call('GET', '/counter/guarded', { 'x-allowed': 'no' });
    expect(refused.statusCode).toBe(403);
    expect(handled).toEqual(['guarded']);
  });

  it('leaves a reply the handler wrote itself alone, and adds to one it passes through', async () => {
    const own = await call('GET', '/counter/own-reply');
    expect(own.statusCode).toBe(202);
    expect(own.headers['x-own']).toBe('yes');
    expect(own.json()).toEqual({ answer: 'own' });

    const through = await call('GET', '/counter/passthrough');
    expect(through.statusCode).toBe(200);
    expect(through.headers['x-through']).toBe('yes');
    expect(through.json()).toEqual({ answer: 'passthrough' });
  });

  it('sends the whole stream of a reply the handler returns itself', async () => {
    const response = await call('GET', '/counter/own-stream');
    expect(response.statusCode).toBe(200);
    expect(response.body).toHaveLength(30 * CHUNK.length);
  });

  it('answers an Observable’s value, and keeps Nest’s own path for a route with an interceptor', async () => {
    expect((await call('GET', '/counter/stream')).json()).toEqual({ answer: 'observable' });
    expect(intercept).not.toHaveBeenCalled();

    const intercepted = await call('GET', '/counter/intercepted');
    expect(intercepted.json()).toEqual({ wrapped: { answer: 'intercepted' } });
    expect(intercept).toHaveBeenCalledTimes(1);
  });
});
