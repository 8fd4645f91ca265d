/**
 * What the gateway costs: the same authenticated read against the config store, straight
 * to the service (the baseline) and through the gateway, in one run on one machine.
 * Prints throughput and latency for both and their ratios; nothing here is asserted.
 *
 *   npm run bench
 */
import { provisionClient } from '../apps/platform-e2e/src/support/clients';
import { startTestPlatform } from '../apps/platform-e2e/src/support/platform';

const CONCURRENCY = 16;
const DURATION_MS = 5_000;

interface Result {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
}

async function measure(url: string, headers: Record<string, string>): Promise<Result> {
  const latencies: number[] = [];
  const deadline = Date.now() + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        if (response.status !== 404) throw new Error(`unexpected status ${response.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    requests: latencies.length,
    perSecond: latencies.length / (DURATION_MS / 1000),
    p50: at(0.5),
    p99: at(0.99),
  };
}

async function main(): Promise<void> {
  // The per-client rate limit would stop the load itself: lift it for the measurement.
  const platform = await startTestPlatform('bench_gateway', {
    env: { LOG_LEVEL: 'error', GATEWAY_RATE_LIMIT_MAX: '100000000' },
  });
  try {
    const client = await provisionClient(platform, {
      tenantId: 'bench',
      permissions: ['configs:read'],
    });
    const headers = { authorization: `Bearer ${await client.token()}`, 'x-api-version': '0' };
    const path = '/entities/bench/configs';
    const direct = `${platform.services.get('config-store')?.url}${path}`;
    const viaGateway = `${platform.baseUrl}${path}`;

    await measure(direct, headers); // warm up both paths (JIT, pools, key cache)
    await measure(viaGateway, headers);
    const baseline = await measure(direct, headers);
    const gateway = await measure(viaGateway, headers);

    const row = (name: string, r: Result) =>
      `${name.padEnd(16)} ${r.perSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms`;
    console.log(
      `authenticated read (404 config.not_found), ${CONCURRENCY} concurrent, ${DURATION_MS / 1000}s each`,
    );
    console.log(row('direct (baseline)', baseline));
    console.log(row('through gateway', gateway));
    console.log(
      `ratio gateway/direct: throughput ${(gateway.perSecond / baseline.perSecond).toFixed(2)}, ` +
        `p50 latency ${(gateway.p50 / baseline.p50).toFixed(2)}, p99 latency ${(gateway.p99 / baseline.p99).toFixed(2)}`,
    );
  } finally {
    await platform.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
