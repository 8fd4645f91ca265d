import { Counter, Histogram, Registry } from 'prom-client';
import { mergeExpositions } from './merge-expositions';

/** A registry as a service has one: its own label, a counter and a histogram. */
function serviceRegistry(service: string, observed: number): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  new Counter({ name: 'things_total', help: 'Things', registers: [registry] }).inc(observed);
  new Histogram({
    name: 'took_seconds',
    help: 'Time taken',
    buckets: [0.1, 1],
    registers: [registry],
  }).observe(observed / 10);
  return registry;
}

describe('mergeExpositions', () => {
  it('gathers each family once, with every registry’s samples, as prom-client writes one registry', async () => {
    const a = serviceRegistry('auth', 1);
    const b = serviceRegistry('orders', 5);
    const merged = mergeExpositions([await a.metrics(), await b.metrics()]);

    for (const name of ['things_total', 'took_seconds']) {
      expect(merged.match(new RegExp(`^# TYPE ${name} `, 'gm'))).toHaveLength(1);
      expect(merged.match(new RegExp(`^# HELP ${name} `, 'gm'))).toHaveLength(1);
    }
    expect(merged).toContain('things_total{service="auth"} 1');
    expect(merged).toContain('things_total{service="orders"} 5');
    expect(merged).toContain('took_seconds_bucket{le="1",service="orders"} 1');
    // Every sample line follows its own family's TYPE line.
    const lines = merged.trimEnd().split('\n');
    let family = '';
    for (const line of lines) {
      const type = /^# TYPE (\S+)/.exec(line);
      if (type) family = type[1];
      else if (line !== '' && !line.startsWith('#')) expect(line.startsWith(family)).toBe(true);
    }
    expect(merged.endsWith('\n')).toBe(true);
  });

  it('takes the process’s own metrics from the first exposition only: every registry of the process repeats them', async () => {
    const registries = ['gateway', 'orders'].map((service) => {
      const registry = serviceRegistry(service, 1);
      new Counter({ name: 'process_things_total', help: 'P', registers: [registry] }).inc(7);
      return registry;
    });
    const merged = mergeExpositions(await Promise.all(registries.map((r) => r.metrics())));
    expect(merged).toContain('process_things_total{service="gateway"} 7');
    expect(merged).not.toContain('process_things_total{service="orders"}');
    expect(merged).toContain('things_total{service="orders"} 1');
  });

  it('gives one registry’s exposition back as it was', async () => {
    const text = await serviceRegistry('auth', 2).metrics();
    expect(mergeExpositions([text])).toBe(text);
  });
});
