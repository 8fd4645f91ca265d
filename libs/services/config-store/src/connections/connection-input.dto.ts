import { IsIn } from 'class-validator';
import { IsAddressableId } from '../common/validators';
import { CONNECTION_ENTITY_TYPES, type ConnectionEntityType } from './connection-entity-type';

export class ConnectionInputDto {
  @IsAddressableId()
  id!: string;

  @IsIn(CONNECTION_ENTITY_TYPES, {
    message: `entityType must be one of ${CONNECTION_ENTITY_TYPES.join(', ')}`,
  })
  entityType!: ConnectionEntityType;
}
