import { SetMetadata } from '@nestjs/common';
import type { Permission } from '../permissions/permission-catalogue';
import { REQUIRED_PERMISSIONS } from './security-metadata';

/**
 * The route (or every route of the controller) needs a token carrying at least one of these
 * permissions in its `scope`. A method's declaration replaces its controller's.
 */
export function RequirePermission(...permissions: [Permission, ...Permission[]]) {
  return SetMetadata(REQUIRED_PERMISSIONS, permissions);
}
