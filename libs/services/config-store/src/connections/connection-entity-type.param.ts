import { invalidParameter } from '../common/request.errors';
import {
  CONNECTION_ENTITY_TYPES,
  isConnectionEntityType,
  type ConnectionEntityType,
} from './connection-entity-type';

export function parseEntityTypeParam(value: string | undefined): ConnectionEntityType | undefined {
  if (value === undefined) return undefined;
  if (!isConnectionEntityType(value)) {
    throw invalidParameter('entity_type', `must be one of ${CONNECTION_ENTITY_TYPES.join(', ')}`);
  }
  return value;
}
