export { createDataSource, openDatabase, schemaOf } from './data-source';
export type { DatabaseOptions } from './data-source';
