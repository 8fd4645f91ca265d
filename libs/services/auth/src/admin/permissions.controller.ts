import { Controller, Get } from '@nestjs/common';
import { PERMISSION_NAMES, PERMISSIONS, RequirePermission } from '@comanda/security';

@Controller('admin/permissions')
@RequirePermission('platform:admin')
export class PermissionsController {
  /** Every permission with the endpoints it opens: what support staff grant from. */
  @Get()
  list() {
    return PERMISSION_NAMES.map((name) => ({
      name,
      description: PERMISSIONS[name].description,
      endpoints: [...PERMISSIONS[name].endpoints],
    }));
  }
}
