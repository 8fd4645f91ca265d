export {
  amqpServerUrl,
  createTestBroker,
  createTestDatabase,
  disposeTestBroker,
  postgresServerUrl,
} from './services';
export type { TestBroker, TestDatabase } from './services';
export { waitFor } from './wait-for';
export { TcpProxy } from './tcp-proxy';
