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
