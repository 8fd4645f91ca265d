import {
  BadRequestException,
  Body,
  Controller,
  createParamDecorator,
  Get,
  Injectable,
  Param,
  Post,
  Query,
  UseGuards,
  type ArgumentMetadata,
  type CanActivate,
  type ExecutionContext,
  type PipeTransform,
} from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsInt, Min } from 'class-validator';
import { of } from 'rxjs';
import { configureHttpApp } from '../configure-http-app';
import { createFastifyAdapter } from '../fastify/create-fastify-adapter';

/** What the pipes and guards of one request saw, in the order they ran. */
let seen: string[] = [];
let handled = 0;

const describeMeta = (meta: ArgumentMetadata) =>
  `${meta.type}:${meta.data ?? '-'}:${meta.metatype?.name ?? '-'}`;

@Injectable()
class Doubled implements PipeTransform {
  transform(value: number, meta: ArgumentMetadata): number {
    seen.push(`doubled ${describeMeta(meta)} ${typeof value}`);
    return value * 2;
  }
}

@Injectable()
class LaterPlusOne implements PipeTransform {
  async transform(value: number): Promise<number> {
    await new Promise((resolve) => setImmediate(resolve));
    seen.push('later+1');
    return value + 1;
  }
}

@Injectable()
class LaterRefusesZero implements PipeTransform {
  async transform(value: number): Promise<number> {
    await new Promise((resolve) => setImmediate(resolve));
    if (value === 0) throw new BadRequestException('0 is not a portion');
    return value;
  }
}

@Injectable()
class RefusesThirteen implements PipeTransform {
  transform(value: number): number {
    if (value === 13) throw new BadRequestException('13 is not served');
    return value;
  }
}

@Injectable()
class Recorded implements PipeTransform {
  transform(value: unknown, meta: ArgumentMetadata): unknown {
    seen.push(`recorded ${describeMeta(meta)}`);
    return value;
  }
}

class PortionDto {
  @IsInt()
  @Min(1)
  grams!: number;
}

const Table = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const table = context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers[
    'x-table'
  ];
  return { table };
});

/** Answers by the `x-guards` header: `yes`, `no`, `later-yes`, `later-no`, `stream-yes`. */
@Injectable()
class HeaderGuard implements CanActivate {
  constructor(private readonly name: string) {}

  canActivate(context: ExecutionContext) {
    const header = context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers[
      'x-guards'
    ];
    const answer = (header ?? '').split(',')[this.name === 'first' ? 0 : 1] || 'yes';
    seen.push(`${this.name} guard on ${context.getClass().name}.${context.getHandler().name}`);
    if (answer === 'yes') return true;
    if (answer === 'no') return false;
    if (answer === 'later-yes') return Promise.resolve(true);
    if (answer === 'later-no') return Promise.resolve(false);
    return of(answer === 'stream-yes');
  }
}

@Injectable()
class FirstGuard extends HeaderGuard {
  constructor() {
    super('first');
  }
}

@Injectable()
class SecondGuard extends HeaderGuard {
  constructor() {
    super('second');
  }
}

@Controller('kitchen')
class KitchenController {
  @Get('portions/:count')
  @UseGuards(FirstGuard, SecondGuard)
  portions(
    @Param('count', Doubled, RefusesThirteen) count: number,
    @Query('extra', LaterPlusOne, Doubled) extra: number,
    @Table(Recorded) table: { table?: string },
  ) {
    handled += 1;
    return { count, extra, table };
  }

  @Get('pair/async-first')
  asyncFirst(@Query('a', LaterRefusesZero) a: number, @Query('b', RefusesThirteen) b: number) {
    return { a, b };
  }

  @Get('pair/sync-first')
  syncFirst(@Query('b', RefusesThirteen) b: number, @Query('a', LaterRefusesZero) a: number) {
    return { a, b };
  }

  @Post('portions')
  weigh(@Body(Recorded) portion: PortionDto) {
    handled += 1;
    return { grams: portion.grams, isDto: portion instanceof PortionDto };
  }
}

@Module({ controllers: [KitchenController], providers: [FirstGuard, SecondGuard] })
class KitchenModule {}

describe('guards and pipes that answer at once (immediate route steps)', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(KitchenModule, createFastifyAdapter(), {
      logger: false,
    });
    configureHttpApp(app, { serviceName: 'kit-test', versionExemptPaths: ['/kitchen/'] });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    // A parameter's async pipe may still finish after another parameter failed the request.
    await new Promise((resolve) => setTimeout(resolve, 20));
    seen = [];
    handled = 0;
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers });

  it('runs the global validation pipe, then each parameter pipe in order, sync and async alike', async () => {
    const response = await get('/kitchen/portions/4?extra=5', { 'x-table': '12' });

    expect(response.statusCode).toBe(200);
    // count: "4" → 4 (Number param) → 8; extra: "5" → 5 → 6 (async) → 12.
    expect(response.json()).toEqual({ count: 8, extra: 12, table: { table: '12' } });
    expect(seen.slice(0, 2)).toEqual([
      'first guard on KitchenController.portions',
      'second guard on KitchenController.portions',
    ]);
    // Each parameter's pipes in their order; Nest sets no order between parameters.
    expect(
      seen.filter((step) => step.includes('count') || step.includes('extra') || step === 'later+1'),
    ).toEqual([
      'doubled param:count:Number number',
      'later+1',
      'doubled query:extra:Number number',
    ]);
    expect(seen).toContain('recorded custom:-:Object');
    expect(seen).toHaveLength(6);
  });

  it.each(['async-first', 'sync-first'])(
    'answers the first error and leaves no unhandled rejection when two parameters fail (%s)',
    async (route) => {
      const rejections: unknown[] = [];
      const onRejection = (reason: unknown) => rejections.push(reason);
      process.on('unhandledRejection', onRejection);
      try {
        const response = await get(`/kitchen/pair/${route}?a=0&b=13`);
        expect(response.statusCode).toBe(400);
        expect(response.json().detail).toBe('13 is not served');
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(rejections).toEqual([]);
      } finally {
        process.off('unhandledRejection', onRejection);
      }
    },
  );

  it('fails the request with the error a pipe throws, before the handler', async () => {
    // 13 is reached only after the global pipe made a number of it and Doubled ran: 6.5 × 2.
    const response = await get('/kitchen/portions/6.5?extra=1');

    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({ status: 400, detail: '13 is not served' });
    expect(handled).toBe(0);
  });

  it('validates a DTO body, then runs the pipes after it on the instance', async () => {
    const valid = await app.inject({
      method: 'POST',
      url: '/kitchen/portions',
      payload: { grams: 250 },
    });
    expect(valid.statusCode).toBe(201);
    expect(valid.json()).toEqual({ grams: 250, isDto: true });
    expect(seen).toEqual(['recorded body:-:PortionDto']);

    seen = [];
    const invalid = await app.inject({
      method: 'POST',
      url: '/kitchen/portions',
      payload: { grams: 0, sauce: 'extra' },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'grams' }),
        expect.objectContaining({ path: 'sauce' }),
      ]),
    );
    expect(seen).toEqual([]);
    expect(handled).toBe(1);
  });

  it.each([
    ['no', 'yes', ['first']],
    ['yes', 'no', ['first', 'second']],
    ['later-no', 'yes', ['first']],
    ['later-yes', 'no', ['first', 'second']],
    ['stream-no', 'yes', ['first']],
    ['yes', 'later-no', ['first', 'second']],
  ])(
    'answers 403 when a guard says no (%s, %s), calling no guard after it',
    async (first, second, called) => {
      const response = await get('/kitchen/portions/1?extra=1', {
        'x-guards': `${first},${second}`,
      });

      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ status: 403 });
      expect(seen).toEqual(called.map((name) => `${name} guard on KitchenController.portions`));
      expect(handled).toBe(0);
    },
  );

  it.each([
    ['later-yes', 'yes'],
    ['stream-yes', 'later-yes'],
    ['yes', 'stream-yes'],
  ])('lets the request through when every guard says yes (%s, %s)', async (first, second) => {
    const response = await get('/kitchen/portions/1?extra=1', { 'x-guards': `${first},${second}` });

    expect(response.statusCode).toBe(200);
    expect(handled).toBe(1);
  });
});
