export { createDataSource, openDatabase, schemaOf } from './data-source';
export type { DatabaseOptions } from './data-source';
export { databaseNow, rolledBack, transactional, UnitOfWork } from './unit-of-work';
export type { Transactional, Tx } from './unit-of-work';
export { deferWrite, sqlRows, WriteOutsideTransactionError } from './sql-rows';
export { takeTurn } from './take-turn';
export { entityColumns } from './entity-columns';
export type { EntityColumns } from './entity-columns';
export {
  databaseUnavailable,
  lastRefusedForDatabaseAt,
  noteRefusedForDatabase,
} from './database-unavailable';
export {
  DatabaseStalledError,
  watchStatementDeadline,
  withinStatementDeadline,
} from './query-deadline';
export { isUuid } from './uuid';
