import { Client, type QueryConfig } from 'pg';

/** Statement texts that get a name, at most, per process (each is prepared once per connection). */
const MAX_NAMED_STATEMENTS = 256;
/** A text is named on its second execution: one-off statements stay unnamed. */
const SIGHTINGS_BEFORE_NAMING = 2;
/** Texts counted while waiting for their second sighting (cleared when full). */
const MAX_COUNTED_TEXTS = 4096;

const names = new Map<string, string>();
const sightings = new Map<string, number>();

/**
 * The name a statement text is prepared under, or undefined to send it unnamed: only texts
 * seen repeatedly, and no more than MAX_NAMED_STATEMENTS of them (an IN list of every length,
 * or SQL built per request, must not prepare without bound on every connection).
 */
export function statementName(text: string): string | undefined {
  const known = names.get(text);
  if (known !== undefined) return known;
  if (names.size >= MAX_NAMED_STATEMENTS) return undefined;
  const seen = (sightings.get(text) ?? 0) + 1;
  if (seen < SIGHTINGS_BEFORE_NAMING) {
    if (sightings.size >= MAX_COUNTED_TEXTS) sightings.clear();
    sightings.set(text, seen);
    return undefined;
  }
  sightings.delete(text);
  const name = `comanda_${names.size + 1}`;
  names.set(text, name);
  return name;
}

type QueryArgs = Parameters<Client['query']>;

/**
 * The pg client of every service pool: a statement with parameters (every statement TypeORM
 * and the services run with values) is sent as a named prepared statement, so PostgreSQL
 * parses and plans it once per connection instead of on every execution; pg then sends only
 * Bind/Execute. Statements without parameters (migrations, `BEGIN`, several commands in one
 * string) keep the simple protocol. Parameters are typed by the statement's context either
 * way, so results are the same as unnamed.
 */
export class PreparingClient extends Client {
  override query(...args: QueryArgs): ReturnType<Client['query']> {
    const [text, values] = args as unknown as [unknown, unknown];
    if (typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      const name = statementName(text);
      if (name !== undefined) {
        const config: QueryConfig = { name, text, values };
        const rest = args.slice(2) as unknown[];
        return (super.query as (...a: unknown[]) => ReturnType<Client['query']>)(config, ...rest);
      }
    }
    return (super.query as (...a: unknown[]) => ReturnType<Client['query']>)(...args);
  }
}
