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
export { lockWaiters } from './lock-waiters';
export { TcpProxy } from './tcp-proxy';
