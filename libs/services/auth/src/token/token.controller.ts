import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JSONWebKeySet } from 'jose';
import { Public } from '@comanda/security';
import { TenantService } from '../tenants/tenant.service';
import { SigningKeyService } from '../keys/signing-key.service';
import { DiscoveryService } from './discovery.service';
import { parseTokenRequest } from './token-request';
import { TokenService, type TokenResponse } from './token.service';
import { DiscoveryDocumentView, JsonWebKeySetView, TokenResponseView } from './token.views';

/**
 * The OAuth endpoints, under `/auth/{tenant}` and, for a tenant with its own issuer host,
 * at the root of that host (the gateway forwards them with `X-Forwarded-Host`).
 */
/** OAuth 2.0 client credentials request (RFC 6749 §4.4), as the spec shows it. */
const TOKEN_REQUEST_SCHEMA = {
  type: 'object',
  required: ['grant_type'],
  properties: {
    grant_type: { type: 'string', enum: ['client_credentials'] },
    client_id: { type: 'string' },
    client_secret: { type: 'string' },
    scope: { type: 'string', description: 'space-separated permissions; absent: all granted' },
  },
};

@Controller()
@Public()
@ApiTags('auth')
export class TokenController {
  constructor(
    private readonly tokens: TokenService,
    private readonly tenants: TenantService,
    private readonly keys: SigningKeyService,
    private readonly discovery: DiscoveryService,
  ) {}

  @Post('auth/:tenantId/connect/token')
  @HttpCode(200)
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ schema: TOKEN_REQUEST_SCHEMA })
  @ApiOkResponse({ description: 'OAuth 2.0 token response', type: TokenResponseView })
  async token(
    @Param('tenantId') tenantId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TokenResponse> {
    // The tenant is checked by the token service's one read.
    return this.answerToken(tenantId, body, request, reply);
  }

  @Post('connect/token')
  @HttpCode(200)
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ schema: TOKEN_REQUEST_SCHEMA })
  @ApiOkResponse({ description: 'OAuth 2.0 token response', type: TokenResponseView })
  async tokenOnIssuerHost(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TokenResponse> {
    const tenant = await this.tenants.byIssuerHost(hostOf(request));
    return this.answerToken(tenant.id, body, request, reply);
  }

  @Get('auth/:tenantId/.well-known/openid-configuration')
  @ApiOkResponse({ type: DiscoveryDocumentView })
  async configuration(@Param('tenantId') tenantId: string) {
    return this.discovery.document((await this.tenants.get(tenantId)).id);
  }

  @Get('.well-known/openid-configuration')
  @ApiOkResponse({ type: DiscoveryDocumentView })
  async configurationOnIssuerHost(@Req() request: FastifyRequest) {
    return this.discovery.document((await this.tenants.byIssuerHost(hostOf(request))).id);
  }

  @Get('auth/:tenantId/.well-known/jwks.json')
  @ApiOkResponse({ type: JsonWebKeySetView })
  async jwks(
    @Param('tenantId') tenantId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JSONWebKeySet> {
    await this.tenants.get(tenantId);
    return this.publicKeys(reply);
  }

  @Get('.well-known/jwks.json')
  @ApiOkResponse({ type: JsonWebKeySetView })
  async jwksOnIssuerHost(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JSONWebKeySet> {
    await this.tenants.byIssuerHost(hostOf(request));
    return this.publicKeys(reply);
  }

  private async answerToken(
    tenantId: string,
    body: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<TokenResponse> {
    void reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
    const tokenRequest = parseTokenRequest(
      body,
      request.headers['content-type'],
      request.headers.authorization,
    );
    return this.tokens.issue(tenantId, tokenRequest, sourceIp(request));
  }

  private async publicKeys(reply: FastifyReply): Promise<JSONWebKeySet> {
    // Short: a key published as `next` must reach verifiers before it signs.
    void reply.header('cache-control', 'public, max-age=60');
    return this.keys.jwks();
  }
}

function hostOf(request: FastifyRequest): string {
  const forwarded = request.headers['x-forwarded-host'];
  const host =
    (typeof forwarded === 'string' ? forwarded.split(',')[0] : undefined) ??
    request.headers.host ??
    '';
  return host.trim();
}

/**
 * The caller's address as failed secrets are counted: the address the gateway saw (it
 * appends it to X-Forwarded-For, so the last entry is the one a client cannot forge through
 * the gateway) together with the peer that says so. Whoever reaches this port directly can
 * write any X-Forwarded-For, but not be the gateway's peer address: its failures never count
 * against the address of a client that comes through the gateway.
 */
function sourceIp(request: FastifyRequest): string {
  const forwarded = request.headers['x-forwarded-for'];
  const last = typeof forwarded === 'string' ? forwarded.split(',').pop()?.trim() : undefined;
  return last ? `${last} via ${request.ip}` : request.ip;
}
