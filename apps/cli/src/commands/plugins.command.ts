import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { ApiClient } from '../api/api-client';
import { ApiError } from '../api/api-error';
import type { CliContext } from '../cli-context';
import { CliError } from '../cli-error';
import { table } from '../output';

/** A plugin config as the registry answers it: further members beside the known ones. */
interface PluginConfig {
  id: string;
  name: string;
  version: string;
  config: Record<string, unknown>;
  updatedAt?: string;
  [member: string]: unknown;
}

interface StoredCode {
  size: number;
  sha256: string;
  overwritten: boolean;
}

interface Manifest {
  version?: unknown;
  [member: string]: unknown;
}

const STEPS = 3;

/**
 * `comanda plugins publish` runs the spec's recipe for a new version (code, manifest, then
 * the config switch) so a build pipeline needs one line; `comanda plugins list` shows the
 * configs and their ids. Progress goes to stderr, the resulting config to stdout.
 */
export function registerPluginsCommand(program: Command, context: CliContext): void {
  const plugins = program
    .command('plugins')
    .description('frontend plugins: publish versions, list plugin configs');

  plugins
    .command('publish')
    .description(
      'upload the code and manifest of a plugin version, then switch its plugin config to it (earlier versions stay loadable)',
    )
    .requiredOption('--name <name>', 'plugin name (a slug, e.g. menu-banner)')
    .requiredOption('--version <version>', 'plugin version (semver, e.g. 1.4.0)')
    .requiredOption(
      '--code <file>',
      'the built plugin: an ES module that default-exports a function',
    )
    .requiredOption('--manifest <file>', 'manifest JSON: {version, description, parameters[]}')
    .option(
      '--config-id <id>',
      'plugin config to switch; default: the only config of the plugin, or a new one when it has none',
    )
    .action(async (options: PublishOptions) => {
      const inputs = await readInputs(options);
      const output = context.output();
      const config = await publish(inputs, await context.session.client(), (line) =>
        output.message(line),
      );
      output.result(
        config,
        () =>
          `Published ${inputs.name}@${inputs.version}; config ${config.id} is on ${config.version}.`,
      );
    });

  plugins
    .command('list')
    .description('list the plugin configs of the tenant (their ids are what --config-id takes)')
    .option('--name <name>', 'only the configs of this plugin')
    .action(async (options: { name?: string }) => {
      const api = await context.session.client();
      const items = await allConfigs(api, options.name);
      context.output().result(items, () =>
        items.length === 0
          ? 'No plugin configs.'
          : table(
              ['ID', 'NAME', 'VERSION', 'UPDATED'],
              items.map((item) => [item.id, item.name, item.version, item.updatedAt]),
            ),
      );
    });
}

interface PublishOptions {
  name: string;
  version: string;
  code: string;
  manifest: string;
  configId?: string;
}

interface PublishInputs extends PublishOptions {
  source: string;
  manifestBody: Manifest;
}

/** Everything is read and checked before the first upload, so a typo uploads nothing. */
async function readInputs(options: PublishOptions): Promise<PublishInputs> {
  const source = await readText(options.code, 'code');
  const manifestText = await readText(options.manifest, 'manifest');
  let manifestBody: Manifest;
  try {
    manifestBody = JSON.parse(manifestText) as Manifest;
  } catch (error) {
    throw new CliError(
      `The manifest ${options.manifest} is not valid JSON: ${(error as Error).message}`,
    );
  }
  if (manifestBody === null || typeof manifestBody !== 'object' || Array.isArray(manifestBody)) {
    throw new CliError(`The manifest ${options.manifest} must be a JSON object.`);
  }
  if (manifestBody.version === undefined) {
    manifestBody = { ...manifestBody, version: options.version };
  } else if (manifestBody.version !== options.version) {
    throw new CliError(
      `The manifest ${options.manifest} is for version ${String(manifestBody.version)}, not --version ${options.version}.`,
    );
  }
  return { ...options, source, manifestBody };
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `Cannot read the ${what} file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

async function publish(
  inputs: PublishInputs,
  client: ApiClient,
  print: (line: string) => void,
): Promise<PluginConfig> {
  const label = `${inputs.name}@${inputs.version}`;
  print(`Publishing ${label}`);

  const code = await step(1, 'code', print, () =>
    client.post<StoredCode>('/frontend/plugins', inputs.source, {
      contentType: 'text/plain; charset=utf-8',
      query: { name: inputs.name, version: inputs.version },
    }),
  );
  print(
    `  ok  1/${STEPS} code      ${code.overwritten ? 'replaced' : 'uploaded'} ${label} (${code.size} bytes, sha256 ${code.sha256.slice(0, 12)})`,
  );

  await step(2, 'manifest', print, () =>
    client.post('/frontend/plugins/manifest', inputs.manifestBody, {
      query: { name: inputs.name },
    }),
  );
  print(`  ok  2/${STEPS} manifest  uploaded for ${label}`);

  const { config, previous } = await step(3, 'config', print, () => switchConfig(client, inputs));
  print(
    previous === undefined
      ? `  ok  3/${STEPS} config    created ${config.id} on ${config.version}`
      : `  ok  3/${STEPS} config    ${config.id} switched from ${previous} to ${config.version}`,
  );
  return config;
}

/** Every config of the tenant (of one plugin when `name` is given), page after page. */
async function allConfigs(client: ApiClient, name: string | undefined): Promise<PluginConfig[]> {
  const items: PluginConfig[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.get<{ items: PluginConfig[]; nextCursor?: string }>(
      '/frontend/plugins/configs',
      { query: { name, limit: '100', cursor } },
    );
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return items;
}

async function switchConfig(
  client: ApiClient,
  inputs: PublishInputs,
): Promise<{ config: PluginConfig; previous?: string }> {
  const items = await allConfigs(client, inputs.name);
  let current: PluginConfig | undefined;
  if (inputs.configId) {
    current = items.find((item) => item.id === inputs.configId);
    if (!current)
      throw new CliError(`There is no config ${inputs.configId} of plugin ${inputs.name}.`);
  } else if (items.length > 1) {
    throw new CliError(
      `Plugin ${inputs.name} has ${items.length} configs (${items.map((item) => item.id).join(', ')}); choose one with --config-id.`,
    );
  } else {
    current = items[0];
  }
  if (!current) {
    const created = await client.post<PluginConfig>('/frontend/plugins/configs', {
      name: inputs.name,
      version: inputs.version,
      config: {},
    });
    return { config: created };
  }
  // Everything the config carries stays as it is; only the version moves.
  const updated = await client.put<PluginConfig>(
    `/frontend/plugins/${encodeURIComponent(current.id)}/config`,
    {
      ...current,
      version: inputs.version,
    },
  );
  return { config: updated, previous: current.version };
}

/** Runs one step; on failure says which step failed and why, then stops the run. */
async function step<T>(
  number: number,
  name: string,
  print: (line: string) => void,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    print(`  FAIL ${number}/${STEPS} ${name}`);
    throw new CliError(
      `${describeFailure(error)}\nStopped at step ${number}/${STEPS} (${name}); earlier steps stay applied.`,
    );
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof ApiError) {
    const head = `${error.status ? `${error.status} ` : ''}${error.code ? `${error.code}: ` : ''}${error.detail ?? error.title}`;
    const fields = error.errors.map((field) => `\n    - ${field.path}: ${field.message}`).join('');
    return `${head}${fields}${error.requestId ? `\n    (request id ${error.requestId})` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}
