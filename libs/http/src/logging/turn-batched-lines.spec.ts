import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { TurnBatchedLines } from './logging.module';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('JSON lines written once per turn of the event loop', () => {
  const writes: string[] = [];
  const out = { write: (text: string) => void writes.push(text) };
  let lines: TurnBatchedLines;

  beforeEach(() => {
    writes.length = 0;
    lines = new TurnBatchedLines(out);
  });

  it('writes the lines of one turn together, in order, at the end of the turn', async () => {
    lines.write('{"n":1}\n');
    lines.write('{"n":2}\n');
    lines.write('{"n":3}\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
    lines.write('{"n":4}\n');
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n']);
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it('writes what is pending when asked to flush, and nothing twice', async () => {
    lines.write('{"n":1}\n');
    const flushed = jest.fn();
    lines.flush(flushed);
    expect(flushed).toHaveBeenCalled();
    expect(writes).toEqual(['{"n":1}\n']);
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n']);
  });

  it('writes the lines still pending when the process exits', () => {
    // A process that logs and exits in the same turn: its lines reach stdout all the same.
    const script = `
      const { logDestination } = require(${JSON.stringify(join(__dirname, 'logging.module'))});
      const stdout = logDestination('json');
      for (let n = 0; n < 3; n++) stdout.write(JSON.stringify({ n }) + '\\n');
      process.exit(0);
    `;
    const output = execFileSync(
      process.execPath,
      ['-r', join(__dirname, '../../../../tools/register.js'), '-e', script],
      { encoding: 'utf8', env: { ...process.env, LOG_FORMAT: 'json' } },
    );
    expect(output).toBe('{"n":0}\n{"n":1}\n{"n":2}\n');
  });
});
