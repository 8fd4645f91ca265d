import { Client, Query, type QueryResult } from 'pg';

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

export class PreparingClient extends Client {}

const simpleQuery = Client.prototype.query as (...args: unknown[]) => unknown;

type QueryCallback = (error: Error | null, result: QueryResult) => void;

/** What pg's result needs to parse a statement's rows: what a RowDescription tells it. */
interface RowShape {
  fields: unknown[];
  parsers: unknown[];
  emptyRow: object;
}

/** The parts of pg's Result and Connection this file reads and sets (pg is pinned exactly). */
interface ResultInternals {
  fields: unknown[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: object | null;
}
type PgConnection = object & { describe: (message: unknown) => void };

/** Per connection, the row shape of each named statement it ran: known once described. */
const shapes = new WeakMap<PgConnection, Map<string, RowShape>>();
const noDescribe = (): void => undefined;

/**
 * A named query, built the way pg builds a query from a text (its fast path) and named after.
 * Given a config object instead, pg copies it through its property descriptors on every call
 * (`cloneQueryConfig`), which cost as much as parsing the row of a config read (issue 10).
 * A query object goes to the client as it is: pg calls its callback.
 *
 * pg asks the server to describe a prepared statement's rows on every execution, and builds
 * their field list, parsers and empty row from the answer each time (`addFields`, 4 % of a
 * config read). A prepared statement's row shape cannot change while it exists (PostgreSQL
 * refuses to run it with "cached plan must not change result type"), so a connection's first
 * execution of a statement describes it, and the later ones skip the Describe and reuse what
 * the first learned. Statements that return no rows are described every time, as before.
 */
class NamedQuery extends Query {
  private connection?: PgConnection;

  constructor(name: string, text: string, values: unknown[]) {
    super(text, values);
    (this as unknown as { name: string }).name = name;
  }

  /** pg's own preparation (parse when new, bind, describe, execute, sync) less the Describe. */
  prepare(connection: PgConnection): void {
    const name = (this as unknown as { name: string }).name;
    const shape = shapes.get(connection)?.get(name);
    this.connection = connection;
    const pgPrepare = (Query.prototype as unknown as { prepare(c: PgConnection): void }).prepare;
    if (!shape) return pgPrepare.call(this, connection);
    // Shadowed on this connection for the call alone (the prototype's comes back after).
    connection.describe = noDescribe;
    try {
      pgPrepare.call(this, connection);
    } finally {
      delete (connection as { describe?: unknown }).describe;
    }
    const result = (this as unknown as { _result: ResultInternals })._result;
    result.fields = shape.fields;
    result._parsers = shape.parsers;
    result._prebuiltEmptyResultObject = shape.emptyRow;
    // As pg's handleRowDescription decides: rows are kept unless only 'row' listeners want them.
    (this as unknown as { _accumulateRows: boolean })._accumulateRows =
      Boolean((this as unknown as { callback?: unknown }).callback) ||
      this.listenerCount('row') === 0;
  }

  handleRowDescription(message: unknown): void {
    (
      Query.prototype as unknown as { handleRowDescription(m: unknown): void }
    ).handleRowDescription.call(this, message);
    const connection = this.connection;
    const result = (this as unknown as { _result: ResultInternals })._result;
    if (!connection || result._parsers === undefined || !result._prebuiltEmptyResultObject) return;
    let known = shapes.get(connection);
    if (!known) shapes.set(connection, (known = new Map()));
    known.set((this as unknown as { name: string }).name, {
      fields: result.fields,
      parsers: result._parsers,
      emptyRow: result._prebuiltEmptyResultObject,
    });
  }
}

// pg's `query` has a dozen overloads; one function serves them all and is typed as pg's.
PreparingClient.prototype.query = function preparingQuery(this: Client, ...args: unknown[]) {
  const [text, values, callback] = args;
  if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) {
    return simpleQuery.apply(this, args);
  }
  const name = statementName(text);
  if (name === undefined) return simpleQuery.apply(this, args);
  const query = new NamedQuery(name, text, values);
  if (typeof callback === 'function') {
    (query as unknown as { callback: QueryCallback }).callback = callback as QueryCallback;
    simpleQuery.call(this, query);
    return undefined;
  }
  // As pg answers a query without a callback: a promise, rejected with a stack trace that
  // leads back to the caller rather than to the socket's read.
  return new Promise<QueryResult>((resolve, reject) => {
    (query as unknown as { callback: QueryCallback }).callback = (error, result) =>
      error ? reject(error) : resolve(result);
    simpleQuery.call(this, query);
  }).catch((error: Error) => {
    Error.captureStackTrace(error);
    throw error;
  });
} as unknown as Client['query'];
