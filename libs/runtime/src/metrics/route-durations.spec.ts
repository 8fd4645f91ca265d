import { Histogram, Registry } from 'prom-client';
import { RouteDurations } from './route-durations';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A prom-client histogram and a RouteDurations, each in a registry of its own. */
function pair() {
  const theirs = new Registry();
  const ours = new Registry();
  for (const registry of [theirs, ours]) registry.setDefaultLabels({ service: 'config-store' });
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers: [theirs],
  });
  const durations = new RouteDurations(
    'http_request_duration_seconds',
    'HTTP requests by method, route and status',
    BUCKETS,
    ours,
  );
  const observe = (method: string, route: string, status: number, seconds: number) => {
    histogram.observe({ method, route, status: String(status) }, seconds);
    durations.seriesOf(method, route, status).observe(seconds);
  };
  return { theirs, ours, observe, durations };
}

describe('RouteDurations', () => {
  it('exposes what prom-client’s histogram exposes for the same requests, line for line', async () => {
    const { theirs, ours, observe } = pair();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    // On a bound, between bounds, above every bound, zero; series in first-seen order.
    const seconds = [0, 0.005, 0.0051, 0.3, 1, 4.99, 5, 7.5, 120];
    seconds.forEach((value, index) => {
      observe('GET', '/entities/:entity/configs', 200, value);
      observe(index % 2 ? 'PUT' : 'GET', '/entities/:entity/configs', 404, value / 3);
      observe('POST', '/auth/:tenant/connect/token', 400 + index, value * 2);
    });
    observe('GET', '/entities/:entity/configs', 200, 0.002);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('counts each request in one bucket, cumulative in the exposition, and starts over on reset', async () => {
    const { ours, durations } = pair();
    const series = durations.seriesOf('GET', '/x', 200);
    for (const value of [0.001, 0.02, 0.02, 3]) series.observe(value);
    const text = await ours.metrics();
    const line = (le: string) => text.split('\n').find((entry) => entry.includes(`le="${le}"`));
    expect(line('0.005')).toMatch(/ 1$/);
    expect(line('0.025')).toMatch(/ 3$/);
    expect(line('2.5')).toMatch(/ 3$/);
    expect(line('5')).toMatch(/ 4$/);
    expect(line('+Inf')).toMatch(/ 4$/);
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*\} 4$/m);
    ours.resetMetrics();
    expect(await ours.metrics()).not.toMatch(/_count/);
  });
});
