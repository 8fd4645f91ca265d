import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { CliError } from '../cli-error';
import { table } from '../output';
import { runPartnerCheck, type PartnerCheckOptions } from '../partner/partner-check';

interface CheckFlags {
  url: string;
  secret: string;
  merchantId: string;
  receiverHost: string;
  receiverPort: string;
  receiverUrl?: string;
  paymentMethod: string;
  currency: string;
  eventTimeoutMs: string;
  quietMs: string;
}

/**
 * `comanda partner check`: the conformance kit for payment partners. It needs no Comanda
 * deployment and no login: it plays Comanda against the partner, hosting its own receiver.
 */
export function registerPartnerCommand(program: Command, context: CliContext): void {
  const partner = program
    .command('partner')
    .description('payment partners: check a partner against the payment contract');

  partner
    .command('check')
    .description(
      "run the payment contract against a partner's /payments endpoint and print a pass/fail table (exit code 1 on any failure); configure the partner to post this merchant's events to the receiver URL printed first",
    )
    .requiredOption('--url <url>', "the partner's /payments address")
    .requiredOption('--secret <secret>', "the merchant's signing secret, as set at the partner")
    .option('--merchant-id <id>', 'merchant id sent in every operation', 'conformance-kit')
    .option('--receiver-host <host>', 'where the kit receiver listens', '127.0.0.1')
    .option('--receiver-port <port>', 'port of the kit receiver (0: a free one)', '0')
    .option(
      '--receiver-url <url>',
      'the receiver as the partner reaches it (a tunnel), instead of http://<host>:<port>',
    )
    .option('--payment-method <method>', 'paymentMethod that always succeeds', 'sandbox_success')
    .option('--currency <code>', 'currency of the amounts', 'EUR')
    .option('--event-timeout-ms <ms>', 'how long to wait for each expected event', '30000')
    .option('--quiet-ms <ms>', 'how long to watch for an event that must not come', '5000')
    .action(async (flags: CheckFlags) => {
      const output = context.output();
      const report = await runPartnerCheck(optionsFrom(flags), (line) => output.message(line));
      output.result(report, () =>
        table(
          ['RESULT', 'CHECK', 'SENT', 'SAW'],
          report.rows.map((row) => [row.passed ? 'pass' : 'FAIL', row.check, row.sent, row.saw]),
        ),
      );
      const failed = report.rows.filter((row) => !row.passed).length;
      if (failed > 0) {
        throw new CliError(`${failed} of ${report.rows.length} partner checks failed`);
      }
    });
}

function optionsFrom(flags: CheckFlags): PartnerCheckOptions {
  const integer = (name: string, value: string, min: number, max: number): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      throw new CliError(`--${name} must be an integer from ${min} to ${max}`);
    }
    return parsed;
  };
  try {
    new URL(flags.url);
  } catch {
    throw new CliError('--url must be an absolute URL, e.g. https://partner.example/payments');
  }
  return {
    url: flags.url,
    secret: flags.secret,
    merchantId: flags.merchantId,
    receiverHost: flags.receiverHost,
    receiverPort: integer('receiver-port', flags.receiverPort, 0, 65535),
    receiverPublicUrl: flags.receiverUrl,
    paymentMethod: flags.paymentMethod,
    currency: flags.currency,
    eventTimeoutMs: integer('event-timeout-ms', flags.eventTimeoutMs, 100, 600_000),
    quietMs: integer('quiet-ms', flags.quietMs, 0, 600_000),
  };
}
