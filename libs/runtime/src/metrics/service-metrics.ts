import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';

/**
 * Prometheus metrics of one service at `GET /metrics`: process metrics, request durations
 * by route and status, and (for a service with a database) how many events wait in its
 * outbox and how many timers are overdue — the two numbers that say messaging is stuck.
 * One registry per service, so services sharing a process (standalone) stay apart.
 */
export function serveMetrics(
  app: NestFastifyApplication,
  service: string,
  dataSource: DataSource | undefined,
  schema: string | undefined,
): void {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });

  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  if (dataSource && schema) {
    new Gauge({
      name: 'comanda_outbox_pending_events',
      help: 'Events written to the outbox and not yet published',
      registers: [registry],
      async collect() {
        const [row] = (await dataSource.query(
          `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE published_at IS NULL`,
        )) as Array<{ n: number }>;
        this.set(row?.n ?? 0);
      },
    });
    new Gauge({
      name: 'comanda_timers_overdue',
      help: 'Durable timers whose deadline passed and that have not fired',
      registers: [registry],
      async collect() {
        const [row] = (await dataSource.query(
          `SELECT count(*)::int AS n FROM "${schema}".timers
           WHERE fired_at IS NULL AND dead_at IS NULL AND fire_at < now()`,
        )) as Array<{ n: number }>;
        this.set(row?.n ?? 0);
      },
    });
  }

  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: ids in paths would explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics' || route.startsWith('/health')) return;
    requests.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  fastify.get('/metrics', async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
}
