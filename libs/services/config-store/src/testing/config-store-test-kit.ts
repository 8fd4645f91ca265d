import { MESSAGING_MIGRATIONS, OutboxWriter } from '@comanda/messaging';
import { openDatabase, transactional, UnitOfWork, type Transactional } from '@comanda/persistence';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import type { Clock } from '../common/clock';
import { CONFIG_STORE_ENTITIES } from '../config-store.entities';
import { ConfigService } from '../configs/config.service';
import { ConfigValuesService } from '../configs/config-values.service';
import { ConnectionService } from '../connections/connection.service';
import { ExtensionReferenceValidator } from '../extensions/extension-reference.validator';
import { ExtensionService } from '../extensions/extension.service';
import { CONFIG_STORE_MIGRATIONS } from '../migrations/config-store.migrations';

/** A clock the test moves by hand; frozen, it makes every write share one timestamp. */
export class ManualClock implements Clock {
  constructor(private time = new Date('2025-01-01T00:00:00.000Z')) {}
  now(): Date {
    return new Date(this.time);
  }
  advance(ms: number): void {
    this.time = new Date(this.time.getTime() + ms);
  }
}

export interface ConfigStoreKit {
  db: TestDatabase;
  dataSource: DataSource;
  clock: ManualClock;
  configs: Transactional<ConfigService, 'create' | 'update' | 'remove'>;
  values: ConfigValuesService;
  connections: Transactional<ConnectionService, 'create' | 'update' | 'remove'>;
  extensions: Transactional<ExtensionService, 'create' | 'update' | 'remove'>;
  outboxTypes(): Promise<string[]>;
  close(): Promise<void>;
}

/** The services of the config store over a fresh database with the real migrations. */
export async function openConfigStoreKit(label: string): Promise<ConfigStoreKit> {
  const db = await createTestDatabase(label);
  const dataSource = await openDatabase({
    url: db.url,
    schema: 'config',
    entities: CONFIG_STORE_ENTITIES,
    migrations: [...MESSAGING_MIGRATIONS, ...CONFIG_STORE_MIGRATIONS],
  });
  const clock = new ManualClock();
  const outbox = new OutboxWriter({ service: 'config-store', schema: 'config' });
  const references = new ExtensionReferenceValidator();
  const configs = new ConfigService(dataSource, outbox, references, clock);
  const unitOfWork = new UnitOfWork(dataSource);
  const writes = ['create', 'update', 'remove'] as const;
  return {
    db,
    dataSource,
    clock,
    configs: transactional(configs, unitOfWork, writes),
    values: new ConfigValuesService(dataSource, configs, references),
    connections: transactional(
      new ConnectionService(dataSource, outbox, clock),
      unitOfWork,
      writes,
    ),
    extensions: transactional(
      new ExtensionService(dataSource, outbox, references, clock),
      unitOfWork,
      writes,
    ),
    outboxTypes: async () =>
      (
        (await dataSource.query(
          'SELECT event_type FROM config.outbox ORDER BY position',
        )) as Array<{ event_type: string }>
      ).map((row) => row.event_type),
    close: async () => {
      await dataSource.destroy();
      await db.drop();
    },
  };
}
