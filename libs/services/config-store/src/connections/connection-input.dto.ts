import { IsIn, IsString, Length } from 'class-validator';
import { LIMITS } from '../common/limits';
import { CONNECTION_ENTITY_TYPES, type ConnectionEntityType } from './connection-entity-type';

export class ConnectionInputDto {
  @IsString()
  @Length(1, LIMITS.idLength)
  id!: string;

  @IsIn(CONNECTION_ENTITY_TYPES, {
    message: `entityType must be one of ${CONNECTION_ENTITY_TYPES.join(', ')}`,
  })
  entityType!: ConnectionEntityType;
}
