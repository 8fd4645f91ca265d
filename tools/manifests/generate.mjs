// Writes docker-compose.yml and k8s/base/{config,services}.yaml from tools/manifests/services.mjs.
// `--check` writes nothing and fails when a file differs from what the list gives.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { DEPLOYED_SERVICES, urlVariable } from './services.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HEADER =
  '# Generated from tools/manifests/services.mjs by `node tools/manifests/generate.mjs`:\n' +
  '# edit the list (or the generator), not this file.\n';
const IMAGE = 'comanda';
const PORT = 3000;
const entry = (name) => ['node', `dist/apps/${name}/main.js`];
const routed = DEPLOYED_SERVICES.filter((service) => service.routed !== false);
const onKubernetes = DEPLOYED_SERVICES.filter((service) => service.kubernetes !== false);
const urls = (host) =>
  Object.fromEntries(routed.map(({ name }) => [urlVariable(name), host(name)]));

export function compose() {
  const healthcheck = {
    test: [
      'CMD',
      'node',
      '-e',
      `fetch('http://127.0.0.1:${PORT}/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`,
    ],
    interval: '10s',
    timeout: '3s',
    retries: 6,
  };
  const services = {
    postgres: {
      image: 'postgres:16-alpine',
      environment: {
        POSTGRES_USER: 'comanda',
        POSTGRES_PASSWORD: 'comanda',
        POSTGRES_DB: 'comanda',
      },
      volumes: ['pgdata:/var/lib/postgresql/data'],
      healthcheck: { test: ['CMD', 'pg_isready', '-U', 'comanda'], interval: '5s', retries: 20 },
    },
    rabbitmq: {
      image: 'rabbitmq:3.13-management-alpine',
      environment: { RABBITMQ_DEFAULT_USER: 'comanda', RABBITMQ_DEFAULT_PASS: 'comanda' },
      healthcheck: {
        test: ['CMD', 'rabbitmq-diagnostics', '-q', 'ping'],
        interval: '5s',
        retries: 30,
      },
    },
  };
  for (const service of DEPLOYED_SERVICES) {
    const needsDatabase = service.database !== false;
    const needsBus = service.bus ?? needsDatabase;
    const dependsOn = {};
    if (needsDatabase) dependsOn.postgres = { condition: 'service_healthy' };
    if (needsBus) dependsOn.rabbitmq = { condition: 'service_healthy' };
    if (service.external) {
      for (const { name, profile } of routed) {
        if (!profile) dependsOn[name] = { condition: 'service_healthy' };
      }
    }
    for (const name of service.dependsOn ?? []) dependsOn[name] = { condition: 'service_healthy' };
    services[service.name] = {
      image: `${IMAGE}:latest`,
      build: '.',
      ...(service.profile ? { profiles: [service.profile] } : {}),
      command: entry(service.name),
      restart: 'unless-stopped',
      ...(Object.keys(dependsOn).length > 0 ? { depends_on: dependsOn } : {}),
      environment: {
        ...(needsDatabase
          ? { DATABASE_URL: 'postgres://comanda:comanda@postgres:5432/comanda' }
          : {}),
        ...(needsBus ? { AMQP_URL: 'amqp://comanda:comanda@rabbitmq:5672' } : {}),
        ...(service.shared === false
          ? {}
          : {
              COMANDA_ENVIRONMENT: 'test',
              COMANDA_PUBLIC_URL: 'http://localhost:3000',
              PORT: String(PORT),
              ...urls((name) => `http://${name}:${PORT}`),
            }),
        ...(service.name === 'auth'
          ? {
              COMANDA_ADMIN_CLIENT_ID: '${COMANDA_ADMIN_CLIENT_ID:-platform-admin}',
              COMANDA_ADMIN_CLIENT_SECRET:
                '${COMANDA_ADMIN_CLIENT_SECRET:?set COMANDA_ADMIN_CLIENT_SECRET (32+ characters)}',
              AUTH_KEY_ENCRYPTION_KEY:
                '${AUTH_KEY_ENCRYPTION_KEY:?set AUTH_KEY_ENCRYPTION_KEY (openssl rand -base64 32)}',
              AUTH_SECRET_PEPPER: '${AUTH_SECRET_PEPPER:?set AUTH_SECRET_PEPPER (32+ characters)}',
            }
          : {}),
        ...service.environment,
      },
      ...(service.publicPort ? { ports: [`${service.publicPort}:${PORT}`] } : {}),
      ...(service.http === false ? {} : { healthcheck }),
    };
  }
  return (
    HEADER +
    '# Distributed mode: PostgreSQL, RabbitMQ and one container per service, all from one image.\n' +
    '# Needs COMANDA_ADMIN_CLIENT_SECRET, AUTH_KEY_ENCRYPTION_KEY, AUTH_SECRET_PEPPER and\n' +
    '# COMANDA_SECRETS_KEY set (see the README), then `docker compose up --build`: the gateway\n' +
    '# answers on :3000.\n' +
    stringify({ name: 'comanda', services, volumes: { pgdata: {} } }, { lineWidth: 0 })
  );
}

/**
 * `env`: the keys of `comanda-secrets` a service reads, each from the Secret; no other reaches
 * its pods (the gateway reads none).
 */
function secretEnv(service) {
  const needsDatabase = service.database !== false;
  const needsBus = service.bus ?? needsDatabase;
  const required = [
    ...(needsDatabase ? ['DATABASE_URL'] : []),
    ...(needsBus ? ['AMQP_URL'] : []),
    ...(service.secrets ?? []),
  ];
  const fromSecret = (key, optional) => ({
    name: key,
    valueFrom: {
      secretKeyRef: { name: 'comanda-secrets', key, ...(optional ? { optional: true } : {}) },
    },
  });
  const env = [
    ...required.map((key) => fromSecret(key, false)),
    ...(service.optionalSecrets ?? []).map((key) => fromSecret(key, true)),
  ];
  return env.length > 0 ? { env } : {};
}

function labels(name) {
  return { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'comanda' };
}

export function k8sConfig() {
  const config = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'comanda-config' },
    data: {
      COMANDA_ENVIRONMENT: 'production',
      COMANDA_PUBLIC_URL: 'https://api.comanda.example',
      COMANDA_ADMIN_CLIENT_ID: 'platform-admin',
      PORT: String(PORT),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      // Behind the ingress every connection comes from an ingress pod: no per-address cap
      // there, and the ingress's X-Forwarded-For counts for rate limits (the pod network).
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
      TRUSTED_PROXIES: '10.0.0.0/8',
      // A young generation of 3 × 16 MiB at most (ADR 0045): the image's 64 MiB would not fit
      // the 384 Mi limit below, and Node's default in such a pod is 1–2 MiB, which promotes
      // requests' short-lived objects to the old generation.
      NODE_OPTIONS: '--max-semi-space-size=16',
      ...urls((name) => `http://${name}`),
    },
  };
  return (
    HEADER +
    '# Settings every service shares. Secrets (database and broker URLs with credentials, the\n' +
    '# admin client secret, the key-encryption key, the pepper, the secrets key) come from the\n' +
    '# Secret `comanda-secrets`, which is not kept in version control (see k8s/README.md).\n' +
    stringify(config)
  );
}

export function k8sServices() {
  const documents = [];
  for (const service of onKubernetes) {
    const { name } = service;
    documents.push({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, labels: labels(name) },
      spec: {
        replicas: 2,
        selector: { matchLabels: { 'app.kubernetes.io/name': name } },
        template: {
          metadata: {
            labels: labels(name),
            // The gateway's /metrics asks for a platform:admin token (ADR 0014): a scrape by
            // annotation, which sends none, would only ever see 401 (k8s/README.md).
            ...(service.external
              ? {}
              : {
                  annotations: {
                    'prometheus.io/scrape': 'true',
                    'prometheus.io/port': String(PORT),
                    'prometheus.io/path': '/metrics',
                  },
                }),
          },
          spec: {
            terminationGracePeriodSeconds: 30,
            automountServiceAccountToken: false,
            securityContext: {
              runAsNonRoot: true,
              runAsUser: 1000,
              runAsGroup: 1000,
              seccompProfile: { type: 'RuntimeDefault' },
            },
            containers: [
              {
                name,
                image: IMAGE,
                command: entry(name),
                ports: [{ name: 'http', containerPort: PORT }],
                envFrom: [{ configMapRef: { name: 'comanda-config' } }],
                ...secretEnv(service),
                startupProbe: {
                  httpGet: { path: '/health/live', port: 'http' },
                  periodSeconds: 2,
                  failureThreshold: 60,
                },
                readinessProbe: {
                  httpGet: { path: '/health/ready', port: 'http' },
                  periodSeconds: 5,
                },
                livenessProbe: {
                  httpGet: { path: '/health/live', port: 'http' },
                  periodSeconds: 10,
                  failureThreshold: 6,
                },
                resources: {
                  requests: { cpu: '100m', memory: '160Mi' },
                  limits: { memory: '384Mi' },
                },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ['ALL'] },
                },
                volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
              },
            ],
            volumes: [{ name: 'tmp', emptyDir: {} }],
          },
        },
      },
    });
    documents.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, labels: labels(name) },
      spec: {
        selector: { 'app.kubernetes.io/name': name },
        ports: [{ name: 'http', port: 80, targetPort: 'http' }],
      },
    });
    documents.push({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name, labels: labels(name) },
      spec: { minAvailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': name } } },
    });
  }
  return HEADER + documents.map((document) => stringify(document)).join('---\n');
}

export const GENERATED = {
  'docker-compose.yml': compose,
  'k8s/base/config.yaml': k8sConfig,
  'k8s/base/services.yaml': k8sServices,
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const stale = [];
  for (const [file, render] of Object.entries(GENERATED)) {
    const path = join(ROOT, file);
    const text = render();
    if (check) {
      let current = '';
      try {
        current = readFileSync(path, 'utf8');
      } catch {
        // missing counts as stale
      }
      if (current !== text) stale.push(file);
    } else writeFileSync(path, text);
  }
  if (stale.length > 0) {
    console.error(
      `${stale.join(', ')} differ from tools/manifests/services.mjs: run node tools/manifests/generate.mjs`,
    );
    process.exit(1);
  }
}
