import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { freePort } from '@comanda/platform';
import { startService, type RunningService } from '@comanda/runtime';
import { partnerSandboxService } from '@comanda/service-partner-sandbox';
import { startBrokenPartner } from './broken-partner.test-server';

const ROOT = resolve(__dirname, '../../../..');
const SECRET = 'kit-secret-ünï';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real `comanda` entry, as `npm run comanda -- ...` runs it. */
function comanda(args: string[]): Promise<CliRun> {
  return new Promise((resolveRun) => {
    execFile(
      process.execPath,
      ['-r', './tools/register.js', 'apps/cli/src/main.ts', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolveRun({ code, stdout, stderr });
      },
    );
  });
}

function rowsOf(stdout: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of stdout.split('\n').slice(1)) {
    const match = /^(pass|FAIL)\s{2,}(.+?)\s{2,}/.exec(line);
    if (match) rows.set(match[2], match[1]);
  }
  return rows;
}

const kitFlags = (url: string, receiverPort: number) => [
  'partner',
  'check',
  '--url',
  url,
  '--secret',
  SECRET,
  '--receiver-port',
  String(receiverPort),
  '--event-timeout-ms',
  '5000',
  '--quiet-ms',
  '500',
];

describe('comanda partner check', () => {
  it('passes every row against the partner sandbox', async () => {
    const receiverPort = await freePort();
    const sandbox: RunningService = await startService(partnerSandboxService, {
      port: 0,
      env: {
        LOG_LEVEL: 'silent',
        PARTNER_SANDBOX_SIGNING_SECRET: SECRET,
        PARTNER_SANDBOX_NOTIFICATIONS_URL: `http://127.0.0.1:${receiverPort}/notifications/merchants/{merchantId}`,
        PARTNER_SANDBOX_EVENT_DELAY_MS: '20',
      },
    });
    try {
      const run = await comanda(kitFlags(`${sandbox.url}/payments`, receiverPort));

      const rows = rowsOf(run.stdout);
      expect(run.stdout).not.toContain('FAIL');
      expect(rows.size).toBe(11);
      expect([...rows.values()].every((result) => result === 'pass')).toBe(true);
      expect(run.stderr).toContain(
        `receiver for merchant conformance-kit: http://127.0.0.1:${receiverPort}/notifications/merchants/conformance-kit/events`,
      );
      expect(run.code).toBe(0);
    } finally {
      await sandbox.close();
    }
  });

  it('fails the named rows against a partner that breaks the contract, with exit code 1', async () => {
    const receiverPort = await freePort();
    const broken = await startBrokenPartner(
      () => `http://127.0.0.1:${receiverPort}/notifications/merchants/conformance-kit`,
    );
    try {
      const run = await comanda(kitFlags(broken.url, receiverPort));

      const failed = [...rowsOf(run.stdout)]
        .filter(([, result]) => result === 'FAIL')
        .map(([check]) => check);
      expect(failed.sort()).toEqual(
        [
          'malformed JSON → 400, no event',
          'missing required field (amount) → 400, no event',
          'missing required field (operationType) → 400, no event',
          'same Idempotency-Key twice → both 202, one operation, one event',
          'capture on an annulled transaction → 202, capture_failed',
          'every event signed with the merchant secret (Comanda-Signature)',
        ].sort(),
      );
      expect(run.stdout).toMatch(
        /FAIL\s+malformed JSON → 400, no event\s+POST malformed JSON.*\s+202; no event/,
      );
      expect(run.stderr).toContain('6 of 11 partner checks failed');
      expect(run.code).toBe(1);
    } finally {
      await broken.close();
    }
  });
});
