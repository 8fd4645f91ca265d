/** The NOTIFY channel a service's relay listens on (per schema: one database may hold several). */
export function outboxChannel(schema: string): string {
  return `comanda_outbox_${schema}`.slice(0, 63);
}

/**
 * Where the writer marks, on a transaction's query runner (`queryRunner.data`), that the
 * transaction wrote rows to the outbox on `channel`: the relay of this process is woken when
 * that transaction commits, without waiting for the notification to come back from the
 * database.
 */
export function outboxWrittenMark(channel: string): string {
  return `comanda:outbox-written:${channel}`;
}
