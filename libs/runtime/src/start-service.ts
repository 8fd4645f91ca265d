import { Global, Logger, Module, type DynamicModule, type InjectionToken } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions, NestMicroservice } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { TerminusModule } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { runInService } from '@comanda/context';
import {
  addProblemAnswers,
  configureHttpApp,
  createFastifyAdapter,
  fillDtoSchemas,
  loggingModule,
  ServiceLogger,
} from '@comanda/http';
import { CONSUMER_TOPOLOGY, consumerQueue } from '@comanda/contracts';
import {
  BusExceptionFilter,
  BusServer,
  DeadLetterStore,
  DeferredRetries,
  Inbox,
  MESSAGE_BUS,
  MessagingLifecycle,
  MessagingModule,
  OutboxRelay,
} from '@comanda/messaging';
import { openDatabase, UnitOfWork, watchStatementDeadline } from '@comanda/persistence';
import { SecurityModule } from '@comanda/security';
import { loadConfig } from './config/load-config';
import { RuntimeConfig } from './config/runtime.config';
import {
  BUS_SERVER_REF,
  DeadLettersController,
  type BusServerRef,
} from './dead-letters/dead-letters.controller';
import { HealthController } from './health/health.controller';
import { registerLocalListener } from './in-process/local-listeners';
import { MoreMetrics } from './metrics/merge-expositions';
import { serveMetrics } from './metrics/service-metrics';
import {
  RUNTIME_ENV,
  schemaMigrations,
  SERVICE_NAME,
  type RunningService,
  type RuntimeEnv,
  type ServiceDefinition,
  type StartOptions,
} from './service-definition';

const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Boots one service as a Nest application on Fastify: its schema migrated, its outbox relay
 * and timers running, its event handlers consuming from the bus, the HTTP kit in front.
 * The same function runs a service alone (distributed mode) and beside the others
 * (standalone mode), so both modes share one code path.
 */
export function startService(
  definition: ServiceDefinition,
  options: StartOptions,
): Promise<RunningService> {
  // Its timers, relay and server inherit the scope: their log lines name this service.
  return runInService(definition.name, () => startInScope(definition, options));
}

async function startInScope(
  definition: ServiceDefinition,
  given: StartOptions,
): Promise<RunningService> {
  // The bus carries outboxes and inboxes, which live in a service's database: a service
  // without one (the gateway, the partner sandbox) neither publishes nor consumes, and its
  // readiness must not follow the broker's (a broker outage would take the API down).
  const options: StartOptions = definition.database ? given : { ...given, bus: undefined };
  const config = loadConfig(RuntimeConfig, options.env);
  const { database } = definition;
  const topology = options.topology ?? CONSUMER_TOPOLOGY;
  if (database && (!options.databaseUrl || !options.bus)) {
    throw new Error(`${definition.name} has a database: startService needs databaseUrl and bus`);
  }

  const dataSource =
    database && options.databaseUrl
      ? await openDatabase({
          url: options.databaseUrl,
          schema: database.schema,
          entities: database.entities,
          migrations: schemaMigrations(definition, options.env),
          poolSize: config.DB_POOL_SIZE,
          preparedStatements: config.DB_PREPARED_STATEMENTS === 'true',
          statementDeadlineMs: config.DB_STATEMENT_DEADLINE_MS,
          applicationName: `comanda-${definition.name}`,
        })
      : undefined;

  let created: NestFastifyApplication | undefined;
  try {
    const busServerRef: BusServerRef = {};
    const root = rootModule(definition, config, options, dataSource, busServerRef);
    const app = await NestFactory.create<NestFastifyApplication>(
      root,
      createFastifyAdapter({
        bodyLimitBytes: definition.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
        rawContentTypes: definition.rawContentTypes,
        timeouts: {
          headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
          requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
          keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
        },
        maxParamLength: definition.maxPathParamLength,
        maxConnectionsPerAddress: definition.publicListener
          ? config.HTTP_MAX_CONNECTIONS_PER_ADDRESS
          : 0,
      }),
      { bufferLogs: true, abortOnError: false },
    );
    created = app;
    const logger = app.get(ServiceLogger);
    app.useLogger(logger);
    configureHttpApp(app, {
      serviceName: definition.name,
      logger,
      versionExemptPaths: ['/openapi.json', '/metrics', ...(definition.versionExemptPaths ?? [])],
      domainProblems: definition.domainProblems,
    });
    if (definition.openApi !== false) serveOpenApi(app, definition.name);
    serveMetrics(app, definition.name, dataSource, database?.schema, options.bus);
    // A keep-alive connection would hold the close open until its idle timeout: once
    // shutdown begins, in-flight responses tell the client to close it.
    let shuttingDown = false;
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onSend', (_request, reply, payload, done) => {
        if (shuttingDown) reply.header('connection', 'close');
        done(null, payload);
      });

    if (dataSource && options.bus) {
      // Deferred so the filter below is registered before the handlers are wired; the
      // application's own init runs the lifecycle hooks, so the microservice must not.
      busServerRef.server = new BusServer(options.bus, {
        service: definition.name,
        inbox: app.get(Inbox),
        deadLetters: app.get(DeadLetterStore),
        // In process, a failed message waits for its retry as a timer of this service, not
        // in memory: it delays nothing else and survives a kill (docs/adr/0032).
        retries: app.get(DeferredRetries),
        topology,
      });
      const consumers = app.connectMicroservice<MicroserviceOptions>(
        { strategy: busServerRef.server },
        { deferInitialization: true },
      );
      (consumers as unknown as NestMicroservice).setIsInitHookCalled(true);
      // Keeps a failing handler's own error in the retry and dead-letter headers.
      consumers.useGlobalFilters(new BusExceptionFilter());
    }
    // Lifecycle hooks (timers, bootstrap data) run before messages or requests arrive; the
    // relay waits for the topology, below.
    await app.init();
    // From here on a statement the database does not answer in time fails (ADR 0057); the
    // migrations and the start-up work above (re-sealing behind another replica's lock) may
    // wait longer.
    if (dataSource && config.DB_STATEMENT_DEADLINE_MS > 0) {
      watchStatementDeadline(dataSource, config.DB_STATEMENT_DEADLINE_MS);
    }
    // The API needs only the database: it answers while the broker does not yet (a restart
    // during a broker outage must not keep the port closed, and an orchestrator's start-up
    // probe kill the pod). Readiness does not wait for the bus either (ADR 0069).
    await app.listen(options.port, options.host ?? config.HOST);
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    new Logger(definition.name).log(`listening on port ${port}`);
    // Topology before events: every consumer's queue and bindings exist before this
    // service's relay publishes its first event, whoever starts first. Meanwhile requests
    // write their events to the outbox, which the relay publishes once it starts.
    await options.bus?.declare?.(
      topology.map((entry) => ({ queue: consumerQueue(entry), eventTypes: entry.eventTypes })),
    );
    await app.startAllMicroservices();
    const startRelay = () => {
      if (dataSource) runInService(definition.name, () => app.get(MessagingLifecycle).startRelay());
    };
    if (!options.deferRelay) startRelay();
    // A caller in this process (the standalone gateway) reaches it without the network.
    const unregisterLocal = registerLocalListener(
      `http://127.0.0.1:${port}`,
      app.getHttpServer(),
      port,
    );

    let closing: Promise<void> | undefined;
    return {
      name: definition.name,
      port,
      url: `http://127.0.0.1:${port}`,
      app,
      // In the service's scope: the relay's loop and its log lines are the service's, also
      // when the platform starts every relay at once (standalone).
      startRelay,
      drainOutbox: async () => {
        if (dataSource) await app.get(OutboxRelay).drain();
      },
      close: () =>
        (closing ??= (async () => {
          // Nest closes HTTP (in-flight requests finish), then the bus consumers (in-flight
          // messages settle), then runs shutdown hooks: the outbox relay drains there.
          shuttingDown = true;
          unregisterLocal();
          await app.close();
          await dataSource?.destroy();
        })()),
    };
  } catch (error) {
    // Nest holds the lines logged while the app starts (bufferLogs) until the start succeeds:
    // a start that failed must still say why, and the caller's line must not wait behind them.
    Logger.flush();
    // A start that failed after init (a consumer missing from the topology, a port in use)
    // has its relay and timers running: stop them before the database goes away.
    await created?.close().catch(() => undefined);
    await dataSource?.destroy();
    throw error;
  }
}

function rootModule(
  definition: ServiceDefinition,
  config: RuntimeConfig,
  options: StartOptions,
  dataSource: DataSource | undefined,
  busServerRef: BusServerRef,
): DynamicModule {
  const values = new Map<InjectionToken, unknown>([
    [RUNTIME_ENV, options.env],
    [SERVICE_NAME, definition.name],
    [RuntimeConfig, config],
    [BUS_SERVER_REF, busServerRef],
  ]);
  if (dataSource) {
    values.set(DataSource, dataSource);
    values.set(UnitOfWork, new UnitOfWork(dataSource));
  }
  if (options.bus) values.set(MESSAGE_BUS, options.bus);
  const tokens = [...values.keys()];

  @Global()
  @Module({
    providers: tokens.map((token) => ({ provide: token, useValue: values.get(token) })),
    exports: tokens,
  })
  class RuntimeCoreModule {}

  const imports: DynamicModule['imports'] = [
    RuntimeCoreModule,
    loggingModule(definition.name, config.LOG_LEVEL, undefined, config.LOG_FORMAT),
    TerminusModule,
  ];
  if (definition.database && dataSource) {
    imports.push(
      MessagingModule.forService({
        service: definition.name,
        schema: definition.database.schema,
        relayPollMs: config.OUTBOX_POLL_MS,
        timerPollMs: config.TIMER_POLL_MS,
        timers: { outageGraceMs: config.TIMER_OUTAGE_GRACE_MS },
        // Started by startService once the topology is declared (or by the caller, when it
        // asked to defer it): the HTTP port opens before the broker answers.
        deferRelayStart: true,
      }),
    );
  }
  if (definition.security !== false) imports.push(SecurityModule.forService({ env: options.env }));
  imports.push(definition.module);

  // Every service with a database keeps (and answers for) its own dead letters.
  const controllers = definition.database
    ? [HealthController, DeadLettersController]
    : [HealthController];
  @Module({ imports, controllers, providers: [MoreMetrics] })
  class ServiceRootModule {}
  Object.defineProperty(ServiceRootModule, 'name', { value: `${pascal(definition.name)}Root` });
  return { module: ServiceRootModule };
}

/** Each service describes its own routes; the gateway merges them into `/docs`. */
function serveOpenApi(app: NestFastifyApplication, name: string): void {
  let document: unknown;
  app
    .getHttpAdapter()
    .getInstance()
    .get('/openapi.json', async (_request, reply) => {
      document ??= addProblemAnswers(
        fillDtoSchemas(
          SwaggerModule.createDocument(
            app,
            new DocumentBuilder()
              .setTitle(`Comanda ${name}`)
              .setVersion('0')
              .addBearerAuth()
              .addGlobalParameters({
                name: 'X-Api-Version',
                in: 'header',
                required: true,
                schema: { type: 'string', enum: ['0'] },
              })
              .build(),
          ),
        ),
      );
      return reply.type('application/json').send(document);
    });
}

function pascal(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, _dash, letter: string) => letter.toUpperCase());
}

/**
 * Loads each of the service's own settings classes once, for their check alone (the module
 * loads them again): a bad value throws the ConfigError that names it before anything opens.
 * The entry points call it first (runServiceMain before the broker, startPlatform before
 * PostgreSQL); startService itself does not check again.
 */
export function checkServiceSettings(definition: ServiceDefinition, env: RuntimeEnv): void {
  for (const type of definition.configs ?? []) loadConfig(type, env);
}
