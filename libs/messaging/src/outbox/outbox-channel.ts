/** The NOTIFY channel a service's relay listens on (per schema: one database may hold several). */
export function outboxChannel(schema: string): string {
  return `comanda_outbox_${schema}`.slice(0, 63);
}
