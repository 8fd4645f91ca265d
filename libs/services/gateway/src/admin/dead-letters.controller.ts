import { Controller, Delete, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '@comanda/http';
import { BearerTokenVerifier, holds, InsufficientScopeError, Public } from '@comanda/security';
import { UpstreamPools, type Upstream } from '../proxy/upstream-pools';

const FORWARDED = ['authorization', 'x-api-version', 'traceparent'] as const;
/** A service's answer headers the caller needs: its challenge, when to come back. */
const PASSED_BACK = ['www-authenticate', 'retry-after'] as const;
const TIMEOUT_MS = 5_000;
const MAX_ITEMS = 500;

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface DeadLetterItem {
  id: string;
  failedAt: string;
}

/**
 * `/admin/dead-letters` (docs/operations.md): asks every service for its own dead letters and
 * merges them, newest first; a replay or purge goes to the service the id names (`orders.42`).
 * Public to Nest's guard (the gateway has none): the controller verifies the caller's token
 * and `platform:admin` itself before it asks anything or reads the id, so a caller without
 * them learns nothing and costs the services nothing. Every service checks them again, and a
 * refusal (any 4xx but a service's 404) is passed on as it came, with its challenge. The
 * services are asked under the gateway's request id, so a problem they answer names the id
 * of the gateway's answer.
 */
@Public()
@ApiExcludeController()
@Controller('admin/dead-letters')
export class DeadLettersAdminController {
  constructor(
    private readonly pools: UpstreamPools,
    private readonly verifier: BearerTokenVerifier,
  ) {}

  @Get()
  async list(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.authorize(request);
    const query = request.query as { limit?: string };
    const limit = Math.max(
      1,
      Math.min(Number.parseInt(query.limit ?? '100', 10) || 100, MAX_ITEMS),
    );
    const answers = await Promise.all(
      this.pools.all().map(async (upstream) => ({
        upstream,
        answer: await this.ask(upstream, 'GET', `/admin/dead-letters?limit=${limit}`, request),
      })),
    );
    // Every service checks the same version header, token and permission: their refusal is
    // the caller's answer (a 404 is a service without a database).
    const refusal = answers.find(
      ({ answer }) => answer.status >= 400 && answer.status < 500 && answer.status !== 404,
    );
    if (refusal) return this.send(reply, refusal.answer);
    // No service answered: none checked the caller's token (the gateway verifies none), so
    // an empty list would be a 2xx to anyone while the services are away.
    if (!answers.some(({ answer }) => answer.status === 200)) {
      throw new ProblemError({
        status: 503,
        code: 'upstream.unavailable',
        title: 'Services unavailable',
        detail: 'No service could list its dead letters now. Try again later.',
        headers: { 'Retry-After': '5' },
      });
    }
    const items: DeadLetterItem[] = [];
    const unavailable: string[] = [];
    for (const { upstream, answer } of answers) {
      if (answer.status === 200) {
        items.push(...((answer.body as { items?: DeadLetterItem[] }).items ?? []));
      } else if (answer.status !== 404) {
        // 404: a service without a database has no dead letters.
        unavailable.push(upstream.name);
      }
    }
    items.sort((a, b) => b.failedAt.localeCompare(a.failedAt));
    await reply
      .status(200)
      .type('application/json')
      .send({ items: items.slice(0, limit), unavailable });
  }

  @Post(':id/replay')
  async replay(
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.toOwner(id, 'POST', '/replay', request, reply);
  }

  @Delete(':id')
  async purge(
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.toOwner(id, 'DELETE', '', request, reply);
  }

  /** Forwards a request about one dead letter to the service its id names. */
  private async toOwner(
    id: string,
    method: 'POST' | 'DELETE',
    suffix: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    await this.authorize(request);
    const path = `/admin/dead-letters/${encodeURIComponent(id)}${suffix}`;
    return this.send(reply, await this.ask(this.owner(id), method, path, request));
  }

  /** 401 without a valid token, 403 without `platform:admin`: before anything else. */
  private async authorize(request: FastifyRequest): Promise<void> {
    const principal = await this.verifier.authenticate(request, undefined);
    if (!holds(principal, 'platform:admin')) throw new InsufficientScopeError(['platform:admin']);
  }

  /** `orders.42` → the orders service. */
  private owner(id: string): Upstream {
    const match = /^([a-z][a-z0-9-]{0,62})\.[0-9]{1,18}$/.exec(id);
    const upstream = match ? this.pools.all().find((u) => u.name === match[1]) : undefined;
    if (!upstream) {
      throw new ProblemError({
        status: 404,
        code: 'dead_letter.not_found',
        title: 'No such dead letter',
        detail: `dead letter ids look like "<service>.<number>", e.g. "orders.42"; "${id.slice(0, 80)}" names no service`,
      });
    }
    return upstream;
  }

  private async ask(
    upstream: Upstream,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    request: FastifyRequest,
  ): Promise<Answer> {
    const headers: Record<string, string> = { 'x-request-id': request.id };
    for (const name of FORWARDED) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    try {
      const response = await upstream.pool.request({
        method,
        path,
        headers,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      const text = await response.body.text();
      const passed: Record<string, string> = {};
      for (const name of PASSED_BACK) {
        const value = response.headers[name];
        if (typeof value === 'string') passed[name] = value;
      }
      return {
        status: response.statusCode,
        body: text ? (JSON.parse(text) as unknown) : undefined,
        headers: passed,
      };
    } catch {
      return {
        status: 503,
        body: {
          type: 'about:blank',
          title: 'Service unavailable',
          status: 503,
          code: 'upstream.unavailable',
          detail: `${upstream.name} did not answer`,
        },
      };
    }
  }

  private async send(reply: FastifyReply, answer: Answer): Promise<void> {
    const problem = answer.status >= 400;
    reply.status(answer.status);
    if (answer.headers) void reply.headers(answer.headers);
    if (answer.body === undefined) return void (await reply.send());
    await reply.type(problem ? 'application/problem+json' : 'application/json').send(answer.body);
  }
}
