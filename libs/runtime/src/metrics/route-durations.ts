import type { Metric, Registry } from 'prom-client';

/** One series: a method, a route pattern and a status. */
export interface DurationSeries {
  /** Counts one request that took `seconds`. */
  observe(seconds: number): void;
}

interface Series extends DurationSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Per bucket, the requests that fell in it (not cumulative); the last is above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A value as prom-client's own histogram hands it to its registry. */
interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Readonly<Record<string, string>>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

/**
 * Request durations as a Prometheus histogram whose series a request finds once, by its
 * method, route and status, and then only counts in: prom-client's histogram rebuilt and
 * hashed the label set and checked each label on every observation, about 3 µs of a 45 µs
 * read (issue 10). It registers in a prom-client registry like any metric and exposes what a
 * prom-client `Histogram` with the same buckets exposes, line for line (its spec compares
 * the two): `_bucket` lines with `le` (cumulative, `+Inf` last), then `_sum` and `_count`,
 * series in the order they were first seen.
 */
export class RouteDurations {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of `method route status`, made the first time it is asked for. */
  seriesOf(method: string, route: string, status: number): DurationSeries {
    const key = `${status} ${method} ${route}`;
    let found = this.series.get(key);
    if (!found) {
      found = this.newSeries({ method, route, status: String(status) });
      this.series.set(key, found);
    }
    return found;
  }

  private newSeries(labels: Record<string, string>): Series {
    const bounds = this.buckets;
    const series: Series = {
      labels: Object.freeze(labels),
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
      count: 0,
      observe(seconds: number): void {
        let bucket = 0;
        while (bucket < bounds.length && seconds > bounds[bucket]) bucket += 1;
        series.counts[bucket] += 1;
        series.sum += seconds;
        series.count += 1;
      },
    };
    return series;
  }

  /** What the registry writes out (prom-client reads this for the text format). */
  getForPromString() {
    const values: ExportedValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const series of this.series.values()) {
      const line = (
        labels: ExportedValue['labels'],
        value: number,
        metricName: string,
        exemplar: null | undefined,
      ) => values.push({ labels, sharedLabels: series.labels, value, metricName, exemplar });
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += series.counts[index];
        line({ le: bound }, cumulative, bucketName, null);
      });
      line({ le: '+Inf' }, series.count, bucketName, null);
      line({}, series.sum, `${this.name}_sum`, undefined);
      line({}, series.count, `${this.name}_count`, undefined);
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }

  /** The same values with every label of a line in `labels` (prom-client's JSON form). */
  get() {
    const data = this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, ...rest }) => ({
        ...rest,
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }

  reset(): void {
    this.series.clear();
  }
}
