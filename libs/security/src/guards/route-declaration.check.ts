import { Injectable, type OnModuleInit } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PUBLIC_ROUTE, REQUIRED_PERMISSIONS } from '../decorators/security-metadata';

const METHOD_NAMES = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'ALL', 'OPTIONS', 'HEAD', 'SEARCH'];

/** Refuses to boot when a route declares neither `@RequirePermission()` nor `@Public()`. */
@Injectable()
export class RouteDeclarationCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const undeclared = undeclaredRoutes(this.discovery, this.scanner, this.reflector);
    if (undeclared.length > 0) {
      throw new Error(
        `Every route must declare @RequirePermission(...) or @Public(); these declare neither: ${undeclared.join(', ')}`,
      );
    }
  }
}

export function undeclaredRoutes(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  reflector: Reflector,
): string[] {
  const undeclared: string[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype;
    if (!controller || typeof controller !== 'function') continue;
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      if (typeof handler !== 'function') continue;
      if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      const targets = [handler, controller];
      const declared =
        reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets) === true ||
        (reflector.getAllAndOverride<unknown[]>(REQUIRED_PERMISSIONS, targets)?.length ?? 0) > 0;
      if (!declared) {
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as number | undefined;
        undeclared.push(`${METHOD_NAMES[method ?? 0] ?? 'ANY'} ${controller.name}.${name}`);
      }
    }
  }
  return undeclared;
}
