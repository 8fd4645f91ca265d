import { ApiProperty } from '@nestjs/swagger';
import type { Tenant } from './tenant.entity';

/** A tenant as the admin API shows it. */
export class TenantView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Its own issuer host, if any' })
  issuerHost!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export const toTenantView = (tenant: Tenant): TenantView => ({
  id: tenant.id,
  name: tenant.name,
  issuerHost: tenant.issuerHost,
  createdAt: tenant.createdAt.toISOString(),
});
