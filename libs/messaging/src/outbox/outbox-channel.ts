/** The NOTIFY channel a service's relay listens on (per schema: one database may hold several). */
export function outboxChannel(schema: string): string {
  return `comanda_outbox_${schema}`.slice(0, 63);
}

/**
 * Where the writer marks, on a transaction's query runner (`queryRunner.data`), that the
 * transaction wrote rows to the outbox on `channel`: the relays of its data source are woken
 * when that transaction commits, without waiting for the notification to come back from the
 * database.
 */
export function outboxWrittenMark(channel: string): string {
  return `comanda:outbox-written:${channel}`;
}

const origins = new WeakMap<object, string>();
let originCount = 0;

/**
 * The payload of the notifications a data source's writers send: its relays, woken at the
 * commit already, let them pass; the relays of other processes and data sources wake on them.
 */
export function notificationOrigin(dataSource: object): string {
  let origin = origins.get(dataSource);
  if (origin === undefined) {
    originCount += 1;
    origin = `${process.pid}/${originCount}`;
    origins.set(dataSource, origin);
  }
  return origin;
}
