import { ApiError } from './api/api-error';
import { CliError } from './cli-error';
import { readCliEnv } from './config/cli-env';
import { buildProgram } from './program';

/** Runs one command; failures go to stderr with the problem's title and detail, exit code 1. */
async function main(argv: string[]): Promise<number> {
  const program = buildProgram(readCliEnv(), { stdout: process.stdout, stderr: process.stderr });
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${describe(error)}\n`);
    return 1;
  }
}

function describe(error: unknown): string {
  if (error instanceof ApiError) {
    const lines = [
      `${error.title}${error.status ? ` (HTTP ${error.status})` : ''}${error.detail ? `: ${error.detail}` : ''}`,
    ];
    for (const field of error.errors) lines.push(`  ${field.path}: ${field.message}`);
    const facts = [
      error.code && `code ${error.code}`,
      error.requestId && `request id ${error.requestId}`,
    ].filter(Boolean);
    if (facts.length > 0) lines.push(`  (${facts.join(', ')})`);
    return lines.join('\n');
  }
  if (error instanceof CliError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

void main(process.argv).then((code) => {
  process.exitCode = code;
});
