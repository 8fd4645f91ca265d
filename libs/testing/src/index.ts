export { amqpServerUrl, createTestBroker, createTestDatabase, postgresServerUrl } from './services';
export type { TestBroker, TestDatabase } from './services';
export { waitFor } from './wait-for';
