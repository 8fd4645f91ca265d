import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { currentContext } from '@comanda/context';
import { PUBLIC_ROUTE, REQUIRED_PERMISSIONS } from '../decorators/security-metadata';
import { PLATFORM_TENANT_ID, type Permission } from '../permissions/permission-catalogue';
import type { Principal } from '../principal';
import { InsufficientScopeError } from '../security.errors';
import { BearerTokenVerifier } from '../verification/bearer-token.verifier';
import { attachPrincipal } from './principal-of-request';

/**
 * The global guard of every service: a route is either `@Public()` or needs a verified
 * bearer token whose scope holds one of the route's permissions. Nothing is open by default.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(BearerTokenVerifier) private readonly verifier: BearerTokenVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;

    const http = context.switchToHttp();
    const principal = await this.verifier.authenticate(http.getRequest(), http.getResponse());
    attachPrincipal(http.getRequest(), principal);
    const requestContext = currentContext();
    if (requestContext) requestContext.tenantId = principal.tenantId;

    const needed =
      this.reflector.getAllAndOverride<Permission[] | undefined>(REQUIRED_PERMISSIONS, targets) ??
      [];
    if (!needed.some((permission) => holds(principal, permission))) {
      throw new InsufficientScopeError(needed);
    }
    return true;
  }
}

/** `platform:admin` counts only on a token of the platform tenant. */
export function holds(principal: Principal, permission: Permission): boolean {
  if (!principal.scopes.has(permission)) return false;
  return permission !== 'platform:admin' || principal.tenantId === PLATFORM_TENANT_ID;
}
