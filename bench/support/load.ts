/**
 * The load generator, in its own process so that it does not share an event loop with what
 * it measures: autocannon with the options given as JSON in argv[2]; prints the figures as
 * one JSON line on stdout.
 */
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections: a fixed-rate run. Absent: as fast as it goes. */
  overallRate?: number;
  /** Every answer must have this status; any other counts as an error. */
  expectStatus: number;
}

export interface LoadResult {
  perSecond: number;
  p50: number;
  p99: number;
  requests: number;
  /** Answers with another status than expected, plus socket errors and timeouts. */
  failures: number;
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2]) as LoadOptions;
  let unexpected = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        duration: options.durationSeconds,
        overallRate: options.overallRate,
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', (_client, statusCode) => {
      if (statusCode !== options.expectStatus) unexpected++;
    });
  });
  const output: LoadResult = {
    perSecond: result.requests.total / options.durationSeconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures: unexpected + result.errors + result.timeouts,
  };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
