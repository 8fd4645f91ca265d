// Property types reach class-transformer through decorator metadata: the polyfill must be
// loaded before this class is decorated, whatever a process happens to import first.
import 'reflect-metadata';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  Matches,
  ValidateIf,
} from 'class-validator';

/** Settings every service shares; each service adds its own typed config beside it. */
export class RuntimeConfig {
  /** HTTP port of a service started alone; the standalone gateway's public port. */
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsString()
  HOST: string = '0.0.0.0';

  /** Empty in standalone mode: an embedded PostgreSQL is started instead. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  /** Empty in standalone mode: the in-process bus is used instead. */
  @IsOptional()
  @Matches(/^amqps?:\/\//, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL?: string;

  @IsString()
  AMQP_EXCHANGE: string = 'comanda.events';

  /**
   * Put in front of every queue name. Empty in production; a test platform sets its broker's
   * prefix so its durable queues (`orders.payment-events`, ...) are never shared with
   * another platform's on the same RabbitMQ.
   */
  @IsString()
  AMQP_QUEUE_PREFIX: string = '';

  /**
   * How often each service declares its RabbitMQ queues and bindings again (ms; 0: only at
   * start and after a reconnect): a binding removed under a running platform comes back
   * within this time.
   */
  @IsInt()
  @Min(0)
  AMQP_TOPOLOGY_REFRESH_MS: number = 60_000;

  @IsIn(['test', 'production'])
  COMANDA_ENVIRONMENT: 'test' | 'production' = 'test';

  /** Public base URL of the gateway: token issuers and notification URLs are built on it. */
  @IsUrl({ require_tld: false, require_protocol: true })
  COMANDA_PUBLIC_URL: string = 'http://localhost:3000';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  /** `auto`: human-readable on a terminal, JSON lines otherwise. */
  @IsIn(['auto', 'pretty', 'json'])
  LOG_FORMAT: 'auto' | 'pretty' | 'json' = 'auto';

  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE: number = 10;

  /**
   * `true`: statements a service repeats are prepared once per connection (ADR 0035). Set
   * `false` behind a connection pooler in transaction mode (PgBouncer), which cannot keep a
   * connection's prepared statements.
   */
  @IsIn(['true', 'false'])
  DB_PREPARED_STATEMENTS: 'true' | 'false' = 'true';

  /**
   * A statement PostgreSQL has not answered in this many milliseconds fails and its
   * connection is closed (a frozen server answers 503 then, not at the gateway's upstream
   * timeout). Keep it under `GATEWAY_UPSTREAM_TIMEOUT_MS`; 0: no deadline. At least 1 s:
   * shorter, a busy server's ordinary answers would be cut off.
   */
  @IsInt()
  @ValidateIf((config: RuntimeConfig) => config.DB_STATEMENT_DEADLINE_MS !== 0)
  @Min(1000)
  DB_STATEMENT_DEADLINE_MS: number = 10000;

  @IsInt()
  @Min(10)
  OUTBOX_POLL_MS: number = 1000;

  @IsInt()
  @Min(10)
  TIMER_POLL_MS: number = 1000;

  /**
   * Deadlines for a report from outside (placement, payment operations) that fall due while
   * the service is down or cannot reach its database fire this long after it is back at the
   * earliest, so a report refused meanwhile can be sent again (docs/adr/0060). 0: no grace.
   */
  @IsInt()
  @Min(0)
  TIMER_OUTAGE_GRACE_MS: number = 30000;

  /** How long a graceful shutdown may take before the process exits anyway. */
  @IsInt()
  @Min(100)
  SHUTDOWN_TIMEOUT_MS: number = 15000;

  /** How long a client may take to send a request's headers (slow-header defense). */
  @IsInt()
  @Min(100)
  HTTP_HEADERS_TIMEOUT_MS: number = 10_000;

  /** How long a client may take to send a whole request, body included. */
  @IsInt()
  @Min(100)
  HTTP_REQUEST_TIMEOUT_MS: number = 30_000;

  /** An idle keep-alive connection is closed after this. */
  @IsInt()
  @Min(100)
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number = 72_000;

  /**
   * Open connections one peer address may hold on a public listener (the gateway); 0: no cap.
   * Behind a load balancer every connection comes from its address: raise it or set 0 there.
   */
  @IsInt()
  @Min(0)
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: number = 256;

  /** Where standalone mode keeps its embedded PostgreSQL data. */
  @IsString()
  COMANDA_DATA_DIR: string = '.comanda';
}
