import { routeUrl } from '@comanda/http';
import type { MessageBus } from '@comanda/messaging';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { MoreMetrics, mergeExpositions } from './merge-expositions';
import { RouteDurations } from './route-durations';

/** Seconds: the upper bounds of the request duration histogram's buckets. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Prometheus metrics of one service at `GET /metrics`: process metrics, request durations
 * by route and status, and (for a service with a database) how many events wait in its
 * outbox (and how many of those failed to publish), how many timers are overdue, and how
 * many messages, outbox rows and timers were given up on (docs/operations.md), and (for a
 * service with a bus) whether its broker connection is up: readiness does not follow the
 * broker (ADR 0069), so this is what an alert on a broker outage reads.
 * One registry per service, so services sharing a process (standalone) stay apart.
 */
export function serveMetrics(
  app: NestFastifyApplication,
  service: string,
  dataSource: DataSource | undefined,
  schema: string | undefined,
  bus?: MessageBus,
): void {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });

  const requests = new RouteDurations(
    'http_request_duration_seconds',
    'HTTP requests by method, route and status',
    REQUEST_BUCKETS,
    registry,
  );

  if (bus) {
    new Gauge({
      name: 'comanda_bus_connected',
      help: 'Whether the service is connected to its message broker (1) or not (0)',
      registers: [registry],
      collect() {
        this.set(bus.isReady() ? 1 : 0);
      },
    });
  }

  if (dataSource && schema) {
    /**
     * A gauge that counts the rows a query selects, at every scrape. While the database is
     * away the count is unknown (NaN): the scrape goes on with every other metric.
     */
    const countGauge = (name: string, help: string, sql: string) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          try {
            const [row] = (await dataSource.query(sql)) as Array<{ n: number }>;
            this.set(row?.n ?? 0);
          } catch {
            this.set(Number.NaN);
          }
        },
      });
    countGauge(
      'comanda_outbox_pending_events',
      'Events written to the outbox and not yet published',
      `SELECT count(*)::int AS n FROM "${schema}".outbox
       WHERE published_at IS NULL AND dead_at IS NULL`,
    );
    countGauge(
      'comanda_outbox_retrying_events',
      'Unpublished events whose last publish failed (an outage, or no queue bound yet)',
      `SELECT count(*)::int AS n FROM "${schema}".outbox
       WHERE published_at IS NULL AND dead_at IS NULL AND last_error IS NOT NULL`,
    );
    countGauge(
      'comanda_timers_overdue',
      'Durable timers whose deadline passed and that have not fired',
      `SELECT count(*)::int AS n FROM "${schema}".timers
       WHERE fired_at IS NULL AND dead_at IS NULL AND fire_at < now()`,
    );
    new Gauge({
      name: 'comanda_parked_messages',
      help: 'Given up on, waiting for an operator: dead letters, parked outbox rows, dead timers',
      labelNames: ['kind'],
      registers: [registry],
      async collect() {
        let row: { dead_letters: number; outbox: number; timers: number } | undefined;
        try {
          [row] = (await dataSource.query(
            `SELECT (SELECT count(*) FROM "${schema}".dead_letters)::int AS dead_letters,
                    (SELECT count(*) FROM "${schema}".outbox WHERE dead_at IS NOT NULL)::int AS outbox,
                    (SELECT count(*) FROM "${schema}".timers WHERE dead_at IS NOT NULL)::int AS timers`,
          )) as Array<{ dead_letters: number; outbox: number; timers: number }>;
        } catch {
          // The database away: unknown, as countGauge's.
          row = { dead_letters: Number.NaN, outbox: Number.NaN, timers: Number.NaN };
        }
        this.set({ kind: 'dead_letter' }, row?.dead_letters ?? 0);
        this.set({ kind: 'outbox' }, row?.outbox ?? 0);
        this.set({ kind: 'timer' }, row?.timers ?? 0);
      },
    });
  }

  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids in paths would explode the label set.
    const route = routeUrl(request) ?? 'unmatched';
    if (route !== '/metrics' && !route.startsWith('/health')) {
      requests.seriesOf(request.method, route, reply.statusCode).observe(reply.elapsedTime / 1000);
    }
    done();
  });
  const more = app.get(MoreMetrics).source;
  fastify.get('/metrics', async (_request, reply) => {
    const own = await registry.metrics();
    const text = more ? mergeExpositions([own, ...(await more.expositions())]) : own;
    // prom-client writes NaN as "Nan"; the exposition format (and strict parsers) say "NaN".
    return reply.type(registry.contentType).send(text.replace(/ Nan$/gm, ' NaN'));
  });
}
