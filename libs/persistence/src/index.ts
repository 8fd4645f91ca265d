export { createDataSource, openDatabase } from './data-source';
export type { DatabaseOptions } from './data-source';
