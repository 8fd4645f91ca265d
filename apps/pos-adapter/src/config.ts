/**
 * Everything the adapter needs, from environment variables, read once at start. Each field
 * names its variable; `loadConfig` says clearly what is missing or wrong.
 */
export interface AdapterConfig {
  /** COMANDA_API_URL: the gateway, e.g. `https://api.comanda.example`. */
  apiUrl: string;
  /** COMANDA_TENANT_ID: the restaurant's tenant. */
  tenantId: string;
  /** COMANDA_TOKEN_URL: default `<apiUrl>/auth/<tenant>/connect/token`. */
  tokenUrl: string;
  /** COMANDA_CLIENT_ID / COMANDA_CLIENT_SECRET: an API client with `orders:placement`. */
  clientId: string;
  clientSecret: string;
  /**
   * COMANDA_RETRY_FOR_MS (default 150000): how long a call Comanda answers 502, 503 or 504, or
   * that meets a network error, is sent again (after its `Retry-After`). Within the placement
   * deadline (3 minutes) and the grace Comanda gives after its own outage.
   */
  retryForMs: number;
  /** RabbitMQ delivery, when AMQP_URL is set. */
  rabbitmq?: {
    url: string;
    /** AMQP_EXCHANGE (default `comanda.events`). */
    exchange: string;
    /** POS_QUEUE (default `pos-adapter.<tenant>`): durable, survives adapter restarts. */
    queue: string;
  };
  /** Webhook delivery, when WEBHOOK_SECRET is set (the secret of your subscription). */
  webhook?: {
    /** WEBHOOK_PORT (default 8080; 0 picks a free port). */
    port: number;
    /** WEBHOOK_HOST (default 0.0.0.0). */
    host: string;
    /** WEBHOOK_PATH (default `/comanda/events`). */
    path: string;
    secret: string;
  };
  /** How the simulated POS behaves. */
  pos: {
    /** POS_OUTCOME: `success` (default) or `failure`. */
    outcome: 'success' | 'failure';
    /** POS_DELAY_MS: how long "sending to the POS" takes (default 500). */
    delayMs: number;
    /** POS_FAILURE_CODE (default `pos.simulated.rejected`). */
    failureCode: string;
    /** POS_PREP_MINUTES: estimated ready time after placing (default 15). */
    prepMinutes: number;
  };
}

export class AdapterConfigError extends Error {}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env): AdapterConfig {
  const problems: string[] = [];
  const required = (name: string): string => {
    const value = env[name];
    if (!value) problems.push(`${name} is required`);
    return value ?? '';
  };
  const integer = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw)) problems.push(`${name} must be a non-negative integer, not "${raw}"`);
    return Number(raw);
  };

  const apiUrl = required('COMANDA_API_URL').replace(/\/+$/, '');
  const tenantId = required('COMANDA_TENANT_ID');
  const clientId = required('COMANDA_CLIENT_ID');
  const clientSecret = required('COMANDA_CLIENT_SECRET');
  const outcome = env.POS_OUTCOME ?? 'success';
  if (outcome !== 'success' && outcome !== 'failure') {
    problems.push(`POS_OUTCOME must be "success" or "failure", not "${outcome}"`);
  }
  const config: AdapterConfig = {
    apiUrl,
    tenantId,
    tokenUrl: env.COMANDA_TOKEN_URL ?? `${apiUrl}/auth/${tenantId}/connect/token`,
    clientId,
    clientSecret,
    retryForMs: integer('COMANDA_RETRY_FOR_MS', 150_000),
    rabbitmq: env.AMQP_URL
      ? {
          url: env.AMQP_URL,
          exchange: env.AMQP_EXCHANGE ?? 'comanda.events',
          queue: env.POS_QUEUE ?? `pos-adapter.${tenantId}`,
        }
      : undefined,
    webhook: env.WEBHOOK_SECRET
      ? {
          port: integer('WEBHOOK_PORT', 8080),
          host: env.WEBHOOK_HOST ?? '0.0.0.0',
          path: env.WEBHOOK_PATH ?? '/comanda/events',
          secret: env.WEBHOOK_SECRET,
        }
      : undefined,
    pos: {
      outcome: outcome as 'success' | 'failure',
      delayMs: integer('POS_DELAY_MS', 500),
      failureCode: env.POS_FAILURE_CODE ?? 'pos.simulated.rejected',
      prepMinutes: integer('POS_PREP_MINUTES', 15),
    },
  };
  if (!config.rabbitmq && !config.webhook) {
    problems.push('set AMQP_URL (RabbitMQ), WEBHOOK_SECRET (webhooks) or both');
  }
  if (problems.length > 0) {
    throw new AdapterConfigError(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return config;
}
