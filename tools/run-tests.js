// `npm test`: every project's tests through Nx, then one closing line for the whole run.
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const resultsDir = join(__dirname, '..', 'tmp', 'test-results');

// A server given in DATABASE_URL / AMQP_URL that does not answer fails every suite the same
// way: say it once, in one line, before running anything.
for (const [variable, what] of [
  ['DATABASE_URL', 'PostgreSQL'],
  ['AMQP_URL', 'RabbitMQ'],
]) {
  const value = process.env[variable];
  if (!value) continue;
  const url = new URL(value);
  const port = url.port || (variable === 'DATABASE_URL' ? '5432' : '5672');
  const probe = spawnSync(process.execPath, [
    '-e',
    `const s=require('node:net').connect({host:${JSON.stringify(url.hostname)},port:${port},timeout:3000});` +
      `s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));s.on('timeout',()=>process.exit(1));`,
  ]);
  if (probe.status !== 0) {
    console.error(
      `${what} at ${variable} (${url.hostname}:${port}) does not answer: start it, or point ${variable} at one that runs`,
    );
    process.exit(1);
  }
}
rmSync(resultsDir, { recursive: true, force: true });

const nx = spawnSync(
  'npx',
  [
    'nx',
    'run-many',
    '-t',
    'test',
    '--parallel=2',
    '--outputStyle=stream',
    // A handle a suite leaks (a loop of a service it did not close) must not hold the whole
    // run open until CI's limit: jest still names it ("Force exiting Jest ...") and exits.
    '--forceExit',
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit', env: { ...process.env, NX_DAEMON: 'false' } },
);

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
if (existsSync(resultsDir)) {
  for (const file of readdirSync(resultsDir)) {
    const counts = JSON.parse(readFileSync(join(resultsDir, file), 'utf8'));
    for (const key of Object.keys(totals)) totals[key] += counts[key];
    failures.push(...(counts.failures ?? []));
  }
}
if (failures.length > 0) {
  console.log(`\nFailed (${failures.length}):`);
  for (const failure of failures) console.log(`  ✕ ${failure}`);
}
const status = nx.status ?? 1;
if (status !== 0 && totals.failed === 0) totals.failed = 1; // a project failed before its tests ran
console.log(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.passed === 0 ? 1 : status);
