import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PERMISSION_NAMES, PERMISSIONS, RequirePermission } from '@comanda/security';
import { PermissionView } from './permission.view';

@Controller('admin/permissions')
@ApiTags('admin')
@RequirePermission('platform:admin')
export class PermissionsController {
  /** Every permission with the endpoints it opens: what support staff grant from. */
  @Get()
  @ApiOkResponse({ type: [PermissionView] })
  list(): PermissionView[] {
    return PERMISSION_NAMES.map((name) => ({
      name,
      description: PERMISSIONS[name].description,
      endpoints: [...PERMISSIONS[name].endpoints],
    }));
  }
}
