import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '@comanda/security';
import { CreateTenantDto } from './create-tenant.dto';
import { toTenantView as view, TenantView } from './tenant.view';
import { TenantService } from './tenant.service';
import { UnitOfWork } from '@comanda/persistence';

@Controller('admin/tenants')
@ApiTags('admin')
@RequirePermission('platform:admin')
export class TenantsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly tenants: TenantService,
  ) {}

  @Post()
  @ApiCreatedResponse({ type: TenantView })
  async create(@Body() body: CreateTenantDto): Promise<TenantView> {
    return view(await this.unitOfWork.run((tx) => this.tenants.create(tx, body)));
  }

  @Get()
  @ApiOkResponse({ type: [TenantView] })
  async list(): Promise<TenantView[]> {
    return (await this.tenants.list()).map(view);
  }
}
