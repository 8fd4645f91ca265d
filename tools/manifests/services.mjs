/**
 * Every service that runs as its own process in distributed mode. docker-compose.yml and
 * k8s/base are generated from this list (`node tools/manifests/generate.mjs`), and CI checks
 * them (`node tools/manifests/check.mjs`): adding a service is one line here.
 *
 * - `database: false`: needs no PostgreSQL; `bus` (default: as `database`): needs RabbitMQ.
 * - `routed: false`: the gateway does not forward to it (no `<NAME>_URL`).
 * - `http: false`: serves no HTTP (no healthcheck, probes or Service).
 * - `shared: false`: does not take the settings every service shares.
 * - `publicPort`: compose publishes it on this host port (the gateway: 3000).
 * - `external: true`: takes traffic from outside the namespace on Kubernetes (the gateway only).
 * - `profile`: compose starts it only with `--profile <name>`; `kubernetes: false`: not deployed there.
 * - `environment`: compose settings of its own; `dependsOn`: compose services it waits for.
 * - `secrets` / `optionalSecrets`: the keys of the Secret `comanda-secrets` its pods get on
 *   Kubernetes besides DATABASE_URL and AMQP_URL (given to those that need them); no pod gets
 *   a key it does not read.
 */
const SECRETS_KEY = '${COMANDA_SECRETS_KEY:?set COMANDA_SECRETS_KEY (openssl rand -base64 32)}';

export const DEPLOYED_SERVICES = [
  {
    name: 'auth',
    secrets: ['AUTH_KEY_ENCRYPTION_KEY', 'AUTH_SECRET_PEPPER'],
    // Unset: no admin client is made (auth says so at start).
    optionalSecrets: [
      'COMANDA_ADMIN_CLIENT_SECRET',
      'AUTH_PREVIOUS_KEY_ENCRYPTION_KEY',
      'AUTH_PREVIOUS_SECRET_PEPPER',
    ],
  },
  { name: 'config-store' },
  { name: 'plugin-registry' },
  // Unset SMTP_URL: confirmation e-mails are only stored (GET /orders/{id}/confirmation-email).
  // Webhook secrets are sealed at rest with COMANDA_SECRETS_KEY (ADR 0040).
  {
    name: 'orders',
    environment: { SMTP_URL: '${SMTP_URL:-}', COMANDA_SECRETS_KEY: SECRETS_KEY },
    secrets: ['COMANDA_SECRETS_KEY'],
    // SMTP_URL may carry the mail server's password.
    optionalSecrets: ['COMANDA_PREVIOUS_SECRETS_KEY', 'SMTP_URL'],
  },
  // Both seal merchants' signing secrets at rest with COMANDA_SECRETS_KEY (ADR 0033).
  {
    name: 'notifications',
    environment: { COMANDA_SECRETS_KEY: SECRETS_KEY },
    secrets: ['COMANDA_SECRETS_KEY'],
    optionalSecrets: ['COMANDA_PREVIOUS_SECRETS_KEY'],
  },
  {
    name: 'payments',
    environment: { COMANDA_SECRETS_KEY: SECRETS_KEY },
    secrets: ['COMANDA_SECRETS_KEY'],
    optionalSecrets: ['COMANDA_PREVIOUS_SECRETS_KEY'],
  },
  // The reference payment partner (docs/payment-partners.md): `docker compose --profile sandbox up`.
  {
    name: 'partner-sandbox',
    database: false,
    routed: false,
    publicPort: 3100,
    profile: 'sandbox',
    kubernetes: false,
    environment: {
      PARTNER_SANDBOX_NOTIFICATIONS_URL: 'http://gateway:3000/notifications/merchants/{merchantId}',
    },
  },
  { name: 'gateway', database: false, routed: false, publicPort: 3000, external: true },
  // The reference POS adapter (docs/pos-integration.md), off by default:
  // POS_TENANT_ID=... POS_CLIENT_ID=... POS_CLIENT_SECRET=... docker compose --profile pos-adapter up
  // with the credentials of an API client of that tenant holding orders:placement.
  {
    name: 'pos-adapter',
    database: false,
    bus: true,
    routed: false,
    http: false,
    shared: false,
    profile: 'pos-adapter',
    kubernetes: false,
    dependsOn: ['gateway'],
    environment: {
      COMANDA_API_URL: 'http://gateway:3000',
      COMANDA_TENANT_ID: '${POS_TENANT_ID:-}',
      COMANDA_CLIENT_ID: '${POS_CLIENT_ID:-}',
      COMANDA_CLIENT_SECRET: '${POS_CLIENT_SECRET:-}',
      POS_OUTCOME: '${POS_OUTCOME:-success}',
    },
  },
];

/** `config-store` → `CONFIG_STORE_URL`, as the gateway and standalone mode name it. */
export function urlVariable(name) {
  return `${name.replace(/-/g, '_').toUpperCase()}_URL`;
}
