import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..', '..');

/** `node -r` this in every process the suite starts: it ends when the test runner is gone. */
export const EXIT_WITH_RUNNER = join(__dirname, 'exit-with-runner.js');

/** A process's output, keeping its last 20,000 characters. */
export function tail(limit = 20_000): { append(chunk: Buffer): void; text(): string } {
  let text = '';
  return {
    append: (chunk: Buffer) => {
      text = (text + chunk.toString('utf8')).slice(-limit);
    },
    text: () => text,
  };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
