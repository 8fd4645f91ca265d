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

/**
 * A named query, built the way pg builds a query from a text (its fast path) and named after.
 * Given a config object instead, pg copies it through its property descriptors on every call
 * (`cloneQueryConfig`), which cost as much as parsing the row of a config read (issue 10).
 * A query object goes to the client as it is: pg calls its callback.
 */
function namedQuery(name: string, text: string, values: unknown[]): Query {
  const query = new Query(text, values);
  (query as Query & { name: string }).name = name;
  return query;
}

// pg's `query` has a dozen overloads; one function serves them all and is typed as pg's.
PreparingClient.prototype.query = function preparingQuery(this: Client, ...args: unknown[]) {
  const [text, values, callback] = args;
  if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) {
    return simpleQuery.apply(this, args);
  }
  const name = statementName(text);
  if (name === undefined) return simpleQuery.apply(this, args);
  const query = namedQuery(name, text, values);
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
