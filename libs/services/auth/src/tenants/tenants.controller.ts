import { Body, Controller, Get, Post } from '@nestjs/common';
import { RequirePermission } from '@comanda/security';
import { CreateTenantDto } from './create-tenant.dto';
import type { Tenant } from './tenant.entity';
import { TenantService } from './tenant.service';

interface TenantView {
  id: string;
  name: string;
  issuerHost: string | null;
  createdAt: string;
}

const view = (tenant: Tenant): TenantView => ({
  id: tenant.id,
  name: tenant.name,
  issuerHost: tenant.issuerHost,
  createdAt: tenant.createdAt.toISOString(),
});

@Controller('admin/tenants')
@RequirePermission('platform:admin')
export class TenantsController {
  constructor(private readonly tenants: TenantService) {}

  @Post()
  async create(@Body() body: CreateTenantDto): Promise<TenantView> {
    return view(await this.tenants.create(body));
  }

  @Get()
  async list(): Promise<TenantView[]> {
    return (await this.tenants.list()).map(view);
  }
}
