import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type Provider,
} from '@nestjs/common';
import { schemaOf, UnitOfWork } from '@comanda/persistence';
import {
  resealColumn,
  sealPlaintextColumn,
  SecretBox,
  secretBoxFrom,
  unsealColumn,
  type SealedColumn,
} from '@comanda/security';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RUNTIME_ENV, type RuntimeEnv } from '../service-definition';

/** What a service keeps sealed under COMANDA_SECRETS_KEY (ADR 0033). */
export interface SealedSecrets {
  /** The service's name: in the error that refuses to start without the key, and in logs. */
  service: string;
  /** The columns of sealed values in the service's schema, re-sealed at start after a key change. */
  columns(schema: string): SealedColumn[];
}

const SEALED_SECRETS = Symbol('SEALED_SECRETS');

/**
 * After a change of COMANDA_SECRETS_KEY (the former one in COMANDA_PREVIOUS_SECRETS_KEY),
 * every value still sealed with the former key is sealed again with the current one at
 * start, before the service serves, so the former key can be dropped after every replica has
 * started once. Replicas take turns (`resealColumn` holds an advisory lock per table).
 */
@Injectable()
export class SealedSecretsResealing implements OnApplicationBootstrap {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly secrets: SecretBox,
    @Inject(SEALED_SECRETS) private readonly sealed: SealedSecrets,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.secrets.hasPreviousKey) return;
    const logger = new Logger(`${this.sealed.service}.secrets`);
    await this.unitOfWork.run(async (tx) => {
      for (const column of this.sealed.columns(schemaOf(tx.connection))) {
        const resealed = await resealColumn(tx, this.secrets, column);
        if (resealed > 0)
          logger.log(`re-sealed ${resealed} value(s) of ${column.table} with the current key`);
      }
    });
  }
}

/**
 * The providers of a service that keeps secrets sealed: its `SecretBox` (the service refuses
 * to start without COMANDA_SECRETS_KEY) and the re-sealing at start.
 */
export function sealedSecretsProviders(sealed: SealedSecrets): Provider[] {
  return [
    { provide: SEALED_SECRETS, useValue: sealed },
    {
      provide: SecretBox,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => secretBoxFrom(env, sealed.service),
    },
    SealedSecretsResealing,
  ];
}

/**
 * A migration that seals a column kept in clear until then: every row's value is sealed
 * into `column.sealed` with its label, and the clear column `plaintext` is dropped, in the
 * migration's transaction. `down` opens them again. `name` ends in the migration's
 * timestamp, as TypeORM orders migrations by it.
 */
export function sealColumnMigration(options: {
  name: string;
  box: SecretBox;
  column: (schema: string) => SealedColumn;
  plaintext: string;
}): new () => MigrationInterface {
  const { name, box, plaintext } = options;
  const column = (runner: QueryRunner) => ({ ...options.column(schemaOf(runner)), plaintext });
  return class SealColumn implements MigrationInterface {
    name = name;

    async up(runner: QueryRunner): Promise<void> {
      await sealPlaintextColumn(runner, box, column(runner));
    }

    async down(runner: QueryRunner): Promise<void> {
      await unsealColumn(runner, box, column(runner));
    }
  };
}
