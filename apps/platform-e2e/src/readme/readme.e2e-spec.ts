import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@comanda/platform';
import { waitFor } from '@comanda/testing';
import {
  isReady,
  killGroup,
  ROOT,
  startStandaloneProcess,
  type StandaloneProcess,
} from '../standalone/standalone-process';

/** The shell blocks of the README that follow a `<!-- quick-start -->` marker, in order. */
function quickStartBlocks(readme: string): string[] {
  const blocks: string[] = [];
  const marker = /<!-- quick-start -->\s*```sh\n([\s\S]*?)```/g;
  for (let match = marker.exec(readme); match; match = marker.exec(readme)) {
    blocks.push(match[1]);
  }
  return blocks;
}

function bash(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolveRun({ code, output }));
  });
}

/**
 * The README's quick start, run as written against a fresh `npm start`: a newcomer's path
 * from clone to token, config written and read, and plugin published cannot rot. Only the
 * port and data folder differ (a test must not take :3000 or the checkout's `.comanda/`).
 */
describe('README quick start', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'comanda-readme-'));
  let running: StandaloneProcess | undefined;
  afterAll(async () => {
    await killGroup(running);
    rmSync(workDir, { recursive: true, force: true });
  });

  it('runs every quick-start block in one shell, each command succeeding', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = quickStartBlocks(readme);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(readme).toMatch(/<!-- quick-start:server -->\s*```sh\nnpm ci\nnpm start\n```/);

    const port = await freePort();
    const dataDir = join(workDir, 'data');
    running = startStandaloneProcess(
      { PORT: String(port), COMANDA_DATA_DIR: dataDir, LOG_FORMAT: 'json' },
      process.env,
    );
    await waitFor('the standalone platform to be ready', () => isReady(port), {
      timeoutMs: 90_000,
      intervalMs: 250,
    });

    const url = `http://localhost:${port}`;
    const script = ['set -euo pipefail', ...blocks]
      .join('\n')
      .replaceAll('http://localhost:3000', url)
      .replaceAll('.comanda/', `${dataDir}/`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      COMANDA_URL: url,
      COMANDA_CONFIG_DIR: join(workDir, 'cli'),
    };
    for (const name of ['COMANDA_PROFILE', 'COMANDA_CLIENT_SECRET', 'COMANDA_TENANT']) {
      delete env[name];
    }
    const run = await bash(script, env);
    if (run.code !== 0)
      throw new Error(`the quick start failed (exit ${run.code}):\n${run.output}`);
    expect(run.output).toContain('"taxRate":7');
    expect(run.output).toMatch(/hello-banner/);
  }, 240_000);
});
