import type { Actor } from '../common/actor';
import type { Availability } from './extension-version.entity';

/**
 * The registry is a marketplace: a Public version is visible to every tenant, a Private one
 * only to its publisher's tenant. Reads hide private ones unless the caller asks for them
 * (`include_private=true`); references may always name the caller's own private ones.
 */
export function isExtensionVisible(
  extension: { tenantId: string; availability: Availability },
  actor: Actor,
  includePrivate: boolean,
): boolean {
  if (extension.availability === 'Public') return true;
  return includePrivate && extension.tenantId === actor.tenantId;
}

/**
 * Of the extensions one id names that the caller may see (its own tenant's, and at most one
 * published by another tenant: ADR 0016), the caller's own tenant's wins.
 */
export function preferOwnTenant<T extends { extension: { tenantId: string } }>(
  visible: T[],
  actor: Actor,
): T | undefined {
  return visible.find((record) => record.extension.tenantId === actor.tenantId) ?? visible[0];
}
