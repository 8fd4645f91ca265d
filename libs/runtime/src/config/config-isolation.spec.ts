import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

describe('RuntimeConfig in a fresh process', () => {
  it('converts numbers from the environment even when nothing loaded reflect-metadata first', () => {
    // As in a service's own main, the config class is the first thing that gets decorated.
    const output = execFileSync(
      process.execPath,
      [
        '-r',
        './tools/register.js',
        '-e',
        `const { loadConfig } = require('./libs/runtime/src/config/load-config.ts');
         const { RuntimeConfig } = require('./libs/runtime/src/config/runtime.config.ts');
         process.stdout.write(JSON.stringify(loadConfig(RuntimeConfig, { PORT: '3991', TIMER_POLL_MS: '250' })));`,
      ],
      { cwd: resolve(__dirname, '../../../..'), encoding: 'utf8' },
    );
    expect(JSON.parse(output)).toMatchObject({ PORT: 3991, TIMER_POLL_MS: 250 });
  });
});
