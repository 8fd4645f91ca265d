import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

/** `"schema"."table"` of an entity, for the few statements TypeORM's builders cannot express. */
export function qualifiedTableOf(
  dataSource: DataSource,
  entity: EntityTarget<ObjectLiteral>,
): string {
  const metadata = dataSource.getMetadata(entity);
  const schema = metadata.schema ?? (dataSource.options as { schema?: string }).schema;
  return schema ? `"${schema}"."${metadata.tableName}"` : `"${metadata.tableName}"`;
}
