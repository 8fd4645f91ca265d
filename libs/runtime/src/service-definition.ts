import type { DynamicModule, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ConsumerDeclaration } from '@comanda/contracts';
import type { DomainProblems } from '@comanda/http';
import { MESSAGING_MIGRATIONS, type MessageBus } from '@comanda/messaging';

// TypeORM accepts entity classes of any constructor shape.
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type Class = Function;
type MigrationClass = new () => unknown;

/** What a service is, as the runtime needs to know it to boot it alone or beside the others. */
export interface ServiceDefinition {
  /** `auth`, `config-store`, ...: queue names `<name>.<handler>`, event source `/comanda/<name>`. */
  name: string;
  /**
   * Its own Postgres schema and what lives there; absent for a stateless service (gateway).
   * `migrations` is a function of the environment snapshot when a migration needs a setting
   * (a key to seal existing rows with); it is called once, before the schema is migrated.
   */
  database?: {
    schema: string;
    entities: Class[];
    migrations: MigrationClass[] | ((env: RuntimeEnv) => MigrationClass[]);
  };
  /**
   * The service's feature module. Globally available to it: `DataSource` and `UnitOfWork` (when it has a
   * database), `MESSAGE_BUS`, `RUNTIME_ENV`, `SERVICE_NAME`, `RuntimeConfig`, and from
   * @comanda/messaging the `OutboxWriter`, `Inbox` and `TimerService`.
   * The runtime also installs `SecurityModule.forService({ env })` of @comanda/security (the
   * global bearer/permission guard and the route declaration check): do not import it again.
   */
  module: Type<unknown> | DynamicModule;
  /**
   * The service's own typed settings (the classes its module loads with `loadConfig`):
   * checked before a database or broker connection is opened, so a bad value stops the start
   * with the one line that names it, not a stack trace from inside the module's providers.
   */
  configs?: ReadonlyArray<new () => object>;
  /** `false` for a service that verifies no tokens itself (the gateway); default true. */
  security?: boolean;
  /** Path prefixes that need no `X-Api-Version` header (`/health/` always is exempt). */
  versionExemptPaths?: string[];
  /** Largest request body accepted, in bytes (default 1 MiB). */
  bodyLimitBytes?: number;
  /** The port the world reaches (the gateway): connections per address are capped there. */
  publicListener?: boolean;
  /** `false`: the service serves `/openapi.json` itself (the gateway: the merged document). */
  openApi?: false;
  /** Longest path parameter (default MAX_IDENTIFIER_LENGTH); a catch-all route needs more. */
  maxPathParamLength?: number;
  /** Raw body parsers to add to Fastify, e.g. `text/plain` for plugin code. */
  rawContentTypes?: string[];
  /** The service's own errors as the problems its clients see (the rest: the kit's mapping). */
  domainProblems?: DomainProblems;
}

export type RuntimeEnv = Readonly<Record<string, string | undefined>>;

export interface StartOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /** Required when the service has a database. */
  databaseUrl?: string;
  /** Required when the service has a database: its outbox relays and consumers use it. */
  bus?: MessageBus;
  /** Environment snapshot taken once at boot; services read their typed config from it. */
  env: RuntimeEnv;
  /**
   * Every consumer on the bus (default `CONSUMER_TOPOLOGY` of @comanda/contracts): declared
   * on the bus before the relay starts, and the service's `@OnEvent` handlers must be in it.
   */
  topology?: readonly ConsumerDeclaration[];
  /**
   * Leave the outbox relay stopped until `startRelay()` (standalone: every service subscribes
   * before any relay publishes).
   */
  deferRelay?: boolean;
}

export interface RunningService {
  name: string;
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  app: NestFastifyApplication;
  /** Starts an outbox relay held back by `deferRelay` (nothing to do otherwise). */
  startRelay(): void;
  /** Publishes every event its outbox holds now (nothing to do for a stateless service). */
  drainOutbox(): Promise<void>;
  /** Graceful: stop taking requests and messages, finish in-flight work, flush the outbox. */
  close(): Promise<void>;
}

export const RUNTIME_ENV = Symbol('RUNTIME_ENV');
export const SERVICE_NAME = Symbol('SERVICE_NAME');

/**
 * Every migration of a service's schema, in the order they run: the messaging tables, then the
 * service's own (given the environment when they need a setting). None for a stateless one.
 */
export function schemaMigrations(definition: ServiceDefinition, env: RuntimeEnv): MigrationClass[] {
  const migrations = definition.database?.migrations;
  if (!migrations) return [];
  return [
    ...(MESSAGING_MIGRATIONS as MigrationClass[]),
    ...(typeof migrations === 'function' ? migrations(env) : migrations),
  ];
}
