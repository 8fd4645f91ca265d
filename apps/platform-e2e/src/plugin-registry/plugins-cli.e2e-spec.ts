import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { provisionClient, type ProvisionedClient } from '../support/clients';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import {
  freshPlugin,
  manifestFor,
  pluginCode,
  pluginTeam,
  type PluginTeam,
} from './plugin-registry-api';

const ROOT = resolve(__dirname, '../../../..');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

describe('comanda plugins (the CLI against the running platform)', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'comanda-plugins-cli-'));
  let platform: TestPlatform;
  let ci: ProvisionedClient;
  let team: PluginTeam;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_plugins_cli');
    ci = await provisionClient(platform, {
      tenantId: 'tenant-plugins-cli',
      permissions: ['plugins:read', 'plugins:write'],
    });
    team = await pluginTeam(platform, 'tenant-plugins-cli', ['plugins:read']);
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** `comanda ...` as a build pipeline runs it: credentials from the environment, its own config dir. */
  function comanda(args: string[]): Promise<CliRun> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      COMANDA_URL: platform.baseUrl,
      COMANDA_TENANT: ci.tenantId,
      COMANDA_CLIENT_ID: ci.clientId,
      COMANDA_CLIENT_SECRET: ci.clientSecret,
      COMANDA_CONFIG_DIR: mkdtempSync(join(workDir, 'config-')),
    };
    return new Promise((resolveRun) => {
      execFile(
        process.execPath,
        ['-r', './tools/register.js', 'apps/cli/src/main.ts', ...args],
        { cwd: ROOT, env, timeout: 60_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolveRun({ code, stdout, stderr });
        },
      );
    });
  }

  function files(name: string, version: string, code: string, manifest: Record<string, unknown>) {
    const dir = mkdtempSync(join(workDir, `${name}-${version}-`));
    const codeFile = join(dir, 'plugin.js');
    const manifestFile = join(dir, 'manifest.json');
    writeFileSync(codeFile, code);
    writeFileSync(manifestFile, JSON.stringify(manifest));
    return ['--name', name, '--version', version, '--code', codeFile, '--manifest', manifestFile];
  }

  it('publish runs code, manifest and config; a second publish switches the config and the first version stays loadable', async () => {
    const name = freshPlugin('cli');
    const first = await comanda([
      'plugins',
      'publish',
      ...files(name, '1.0.0', pluginCode('one'), manifestFor('1.0.0')),
    ]);
    expect(first.stderr).toContain(`Publishing ${name}@1.0.0`);
    expect(first.stderr).toMatch(/ok {2}1\/3 code +uploaded/);
    expect(first.stderr).toMatch(/ok {2}2\/3 manifest/);
    expect(first.stderr).toMatch(/ok {2}3\/3 config +created [0-9a-f-]{36} on 1\.0\.0/);
    expect(first.code).toBe(0);

    const second = await comanda([
      'plugins',
      'publish',
      ...files(
        name,
        '1.1.0',
        pluginCode('two'),
        manifestFor('1.1.0', [{ name: 'title', type: 'string', required: false }]),
      ),
    ]);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/3\/3 config +[0-9a-f-]{36} switched from 1\.0\.0 to 1\.1\.0/);
    expect(second.stdout).toMatch(/config [0-9a-f-]{36} is on 1\.1\.0/);

    const configs = await team.call<{ items: Array<{ version: string }> }>(
      'GET',
      `/frontend/plugins/configs?name=${name}`,
    );
    expect(configs.json.items.map((item) => item.version)).toEqual(['1.1.0']);
    expect((await team.code(name, '1.0.0')).bytes.toString('utf8')).toBe(pluginCode('one'));
    expect((await team.code(name, '1.1.0')).bytes.toString('utf8')).toBe(pluginCode('two'));

    const listed = await comanda(['plugins', 'list', '--name', name]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`[0-9a-f-]{36} +${name} +1\\.1\\.0`));
  });

  it('stops at the failing step with a non-zero exit and the reason, uploading nothing after it', async () => {
    const name = freshPlugin('cli-fail');
    const run = await comanda([
      'plugins',
      'publish',
      ...files(name, '1.0.0', 'module.exports = () => 1;', manifestFor('1.0.0')),
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('FAIL 1/3 code');
    expect(run.stderr).toContain('422 plugin.invalid_code');
    expect(run.stderr).toContain('Stopped at step 1/3 (code)');
    expect(run.stderr).not.toContain('2/3');
    expect((await team.call('GET', `/frontend/plugins/${name}/versions`)).status).toBe(404);
  });

  it('fails a config switch the manifest refuses, after code and manifest were uploaded', async () => {
    const name = freshPlugin('cli-config');
    const required = [{ name: 'apiKey', type: 'string', required: true }];
    const run = await comanda([
      'plugins',
      'publish',
      ...files(name, '1.0.0', pluginCode('x'), manifestFor('1.0.0', required)),
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/ok {2}2\/3 manifest/);
    expect(run.stderr).toContain('FAIL 3/3 config');
    expect(run.stderr).toContain('config.apiKey: apiKey is required (string)');
    expect((await team.code(name, '1.0.0')).status).toBe(200);
  });

  it('refuses a manifest whose version differs from --version before uploading anything', async () => {
    const name = freshPlugin('cli-mismatch');
    const run = await comanda([
      'plugins',
      'publish',
      ...files(name, '2.0.0', pluginCode('x'), manifestFor('1.0.0')),
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('is for version 1.0.0, not --version 2.0.0');
    expect((await team.call('GET', `/frontend/plugins/${name}/versions`)).status).toBe(404);
  });
});
