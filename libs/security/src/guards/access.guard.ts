import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { currentContext } from '@comanda/context';
import { httpRequestOf } from '@comanda/http';
import { PUBLIC_ROUTE, REQUIRED_PERMISSIONS } from '../decorators/security-metadata';
import { PLATFORM_TENANT_ID, type Permission } from '../permissions/permission-catalogue';
import type { Principal } from '../principal';
import { InsufficientScopeError } from '../security.errors';
import { BearerTokenVerifier } from '../verification/bearer-token.verifier';
import { attachPrincipal, principalOf } from './principal-of-request';

/** What a route declares, read from its metadata once. */
interface RouteAccess {
  isPublic: boolean;
  needed: Permission[];
}

/**
 * The global guard of every service: a route is either `@Public()` or needs a verified
 * bearer token whose scope holds one of the route's permissions. Nothing is open by default.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  /** Per handler: its declaration is fixed at boot, so it is not looked up per request. */
  private readonly routes = new WeakMap<object, RouteAccess>();

  constructor(
    private readonly reflector: Reflector,
    @Inject(BearerTokenVerifier) private readonly verifier: BearerTokenVerifier,
  ) {}

  /**
   * Answers at once when the token was verified before the body was read
   * (AuthenticationBeforeBody: every route that needs one), so the common path makes no
   * promise (docs/adr/0044); otherwise it verifies the token here.
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const { isPublic, needed } = this.accessOf(context);
    if (isPublic) return true;

    const request = httpRequestOf<Parameters<BearerTokenVerifier['authenticate']>[0]>(context);
    const known = principalOf(request);
    if (known) return this.admit(request, known, needed);
    return this.verifier
      .authenticate(request, context.switchToHttp().getResponse())
      .then((principal) => this.admit(request, principal, needed));
  }

  private admit(request: object, principal: Principal, needed: Permission[]): boolean {
    attachPrincipal(request, principal);
    const requestContext = currentContext();
    if (requestContext) requestContext.tenantId = principal.tenantId;

    if (!needed.some((permission) => holds(principal, permission))) {
      throw new InsufficientScopeError(needed);
    }
    return true;
  }

  private accessOf(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    let access = this.routes.get(handler);
    if (!access) {
      const targets = [handler, context.getClass()];
      access = {
        isPublic: this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets) === true,
        needed:
          this.reflector.getAllAndOverride<Permission[] | undefined>(
            REQUIRED_PERMISSIONS,
            targets,
          ) ?? [],
      };
      this.routes.set(handler, access);
    }
    return access;
  }
}

/** `platform:admin` counts only on a token of the platform tenant. */
export function holds(principal: Principal, permission: Permission): boolean {
  if (!principal.scopes.has(permission)) return false;
  return permission !== 'platform:admin' || principal.tenantId === PLATFORM_TENANT_ID;
}
