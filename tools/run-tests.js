// `npm test`: every project's tests through Nx, then one closing line for the whole run.
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const resultsDir = join(__dirname, '..', 'tmp', 'test-results');
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
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit', env: { ...process.env, NX_DAEMON: 'false' } },
);

const totals = { passed: 0, failed: 0, skipped: 0 };
if (existsSync(resultsDir)) {
  for (const file of readdirSync(resultsDir)) {
    const counts = JSON.parse(readFileSync(join(resultsDir, file), 'utf8'));
    for (const key of Object.keys(totals)) totals[key] += counts[key];
  }
}
const status = nx.status ?? 1;
if (status !== 0 && totals.failed === 0) totals.failed = 1; // a project failed before its tests ran
console.log(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.passed === 0 ? 1 : status);
