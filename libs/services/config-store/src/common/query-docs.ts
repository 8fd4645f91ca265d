import { applyDecorators } from '@nestjs/common';
import { ApiQuery, type ApiQueryOptions } from '@nestjs/swagger';
import { CONNECTION_ENTITY_TYPES } from '../connections/connection-entity-type';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './page';

const flag = (name: string, description: string): ApiQueryOptions => ({
  name,
  required: false,
  description,
  schema: { type: 'boolean', default: false },
});

/** The query parameters of the configuration group, as the spec's endpoint table names them. */
const PARAMETERS = new Map<string, ApiQueryOptions>([
  ['include_deleted', flag('include_deleted', 'Include removed records')],
  ['include_private', flag('include_private', "Include the caller's private extensions")],
  ['include_datatypes', flag('include_datatypes', 'Add the JSON type of each value')],
  ['complete', flag('complete', 'Answer the complete model')],
  [
    'take',
    {
      name: 'take',
      required: false,
      description: 'Number of versions, newest first',
      schema: { type: 'integer', format: 'int32', default: 1, minimum: 1, maximum: PAGE_SIZE_MAX },
    },
  ],
  [
    'limit',
    {
      name: 'limit',
      required: false,
      description: 'Page size',
      schema: { type: 'integer', default: PAGE_SIZE_DEFAULT, minimum: 1, maximum: PAGE_SIZE_MAX },
    },
  ],
  [
    'created_at_offset',
    {
      name: 'created_at_offset',
      required: false,
      description: "The next page starts after this creation time (the last item's `createdAt`)",
      schema: { type: 'string', format: 'date-time' },
    },
  ],
  [
    'entity_id',
    { name: 'entity_id', required: false, description: 'Only this id', schema: { type: 'string' } },
  ],
  [
    'entity_type',
    {
      name: 'entity_type',
      required: false,
      description: 'Only this entity type',
      schema: { type: 'string', enum: [...CONNECTION_ENTITY_TYPES] },
    },
  ],
]);

/**
 * Declares a route's query parameters in the API reference: the routes read them one by one
 * (`@Query('take')`), which the document builder does not see.
 */
export function QueryParameters(...names: string[]): MethodDecorator {
  return applyDecorators(
    ...names.map((name) => {
      const options = PARAMETERS.get(name);
      if (!options) throw new Error(`no documentation for the query parameter ${name}`);
      return ApiQuery(options);
    }),
  );
}
