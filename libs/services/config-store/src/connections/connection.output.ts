import { ApiProperty } from '@nestjs/swagger';
import { CONNECTION_ENTITY_TYPES, type ConnectionEntityType } from './connection-entity-type';
import type { ConnectionEntity } from './connection.entity';

export interface ConnectionOutput {
  entityType: ConnectionEntityType;
  publisher: string;
  id: string;
  lastUpdateDate: string;
  /** The pagination key: pass the last one seen as `created_at_offset` for the next page. */
  createdAt: string;
  deleted: boolean;
}

export function toConnectionOutput(row: ConnectionEntity): ConnectionOutput {
  return {
    entityType: row.entityType,
    publisher: row.publisher,
    id: row.id,
    lastUpdateDate: (row.deletedAt ?? row.updatedAt).toISOString(),
    createdAt: row.createdAt.toISOString(),
    deleted: row.deletedAt !== null,
  };
}

/** How the API description shows {@link ConnectionOutput}. */
export class ConnectionView implements ConnectionOutput {
  @ApiProperty({ enum: CONNECTION_ENTITY_TYPES }) entityType!: ConnectionEntityType;
  @ApiProperty({ description: 'The client id that saved it' }) publisher!: string;
  @ApiProperty() id!: string;
  @ApiProperty({ format: 'date-time' }) lastUpdateDate!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'The pagination key: pass the last one seen as `created_at_offset`',
  })
  createdAt!: string;
  @ApiProperty() deleted!: boolean;
}
