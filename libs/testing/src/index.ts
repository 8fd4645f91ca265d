export {
  amqpServerUrl,
  createTestBroker,
  createTestDatabase,
  disposePlatformBroker,
  disposeTestBroker,
  postgresServerUrl,
} from './services';
export type { TestBroker, TestDatabase } from './services';
export { waitFor } from './wait-for';
export { TcpProxy } from './tcp-proxy';
