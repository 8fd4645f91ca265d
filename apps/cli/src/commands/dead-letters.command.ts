import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { table } from '../output';

interface DeadLetterView {
  id: string;
  service: string;
  consumer: string;
  eventType: string;
  tenantId: string | null;
  subject: string;
  error: string;
  attempts: number;
  failedAt: string;
}

interface DeadLetterList {
  items: DeadLetterView[];
  /** Services that did not answer: their dead letters are missing from the list. */
  unavailable: string[];
}

function limitOf(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 500) {
    throw new Error(`expected a number from 1 to 500, got "${value}"`);
  }
  return parsed;
}

/**
 * `comanda dead-letters list|replay|purge` (also `npm run dead-letters -- ...`): the messages
 * consumers gave up on, from every service (docs/operations.md). Needs a platform:admin token.
 */
export function registerDeadLettersCommand(program: Command, context: CliContext): void {
  const deadLetters = program
    .command('dead-letters')
    .description('messages consumers gave up on, in every service (needs platform:admin)');

  deadLetters
    .command('list')
    .description('list dead letters, newest first')
    .option('--limit <n>', 'at most this many (1-500)', limitOf, 100)
    .action(async (options: { limit: number }) => {
      const api = await context.session.client();
      const answer = await api.get<DeadLetterList>(`/admin/dead-letters?limit=${options.limit}`);
      const output = context.output();
      output.result(answer, () => {
        const lines = table(
          ['ID', 'CONSUMER', 'EVENT', 'TENANT', 'SUBJECT', 'ATTEMPTS', 'FAILED AT', 'ERROR'],
          answer.items.map((item) => [
            item.id,
            item.consumer,
            item.eventType,
            item.tenantId ?? undefined,
            item.subject,
            String(item.attempts),
            item.failedAt,
            item.error,
          ]),
        );
        const missing =
          answer.unavailable.length > 0
            ? `\nNot answering (their dead letters are not listed): ${answer.unavailable.join(', ')}`
            : '';
        return `${lines}${missing}`;
      });
    });

  deadLetters
    .command('replay')
    .description('send dead letters back through their consumer (never applied twice)')
    .argument('<ids...>', 'dead letter ids, e.g. orders.42')
    .action(async (ids: string[]) => {
      const api = await context.session.client();
      const results: Array<{ id: string; outcome: string }> = [];
      for (const id of ids) {
        results.push(
          await api.post<{ id: string; outcome: string }>(
            `/admin/dead-letters/${encodeURIComponent(id)}/replay`,
          ),
        );
      }
      context
        .output()
        .result(results, () =>
          results
            .map((r) =>
              r.outcome === 'applied'
                ? `${r.id}: applied`
                : `${r.id}: already applied before, not applied again`,
            )
            .join('\n'),
        );
    });

  deadLetters
    .command('purge')
    .description('delete dead letters for good')
    .argument('<ids...>', 'dead letter ids, e.g. orders.42')
    .action(async (ids: string[]) => {
      const api = await context.session.client();
      for (const id of ids) await api.delete(`/admin/dead-letters/${encodeURIComponent(id)}`);
      context.output().result({ purged: ids }, () => `Purged ${ids.join(', ')}.`);
    });
}
