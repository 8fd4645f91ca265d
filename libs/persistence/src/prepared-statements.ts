import { Client, Query, types as pgTypes, type QueryResult } from 'pg';

// pg's mapping of a value to what it binds, as its queries map theirs (pg is pinned exactly).
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

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

/** What a RowDescription told pg's result about a statement's rows (its parsers aside). */
interface RowShape {
  fields: FieldDescription[];
  emptyRow: object;
}

// The parts of pg's Query, Result and Connection this file reads and sets (pg is pinned exactly).
interface FieldDescription {
  dataTypeID: number;
  format?: string;
}
interface TypeSource {
  getTypeParser(oid: number, format: string): unknown;
}
interface ResultInternals {
  fields: FieldDescription[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: object | null;
  _types?: TypeSource;
}
interface QueryInternals {
  name: string;
  queryMode?: string;
  callback?: unknown;
  _result: ResultInternals;
  _accumulateRows: boolean;
}
interface PgConnection {
  describe(message: unknown): void;
  parse(message: { text: string; name: string }): void;
  bind(message: { portal: string; statement: string; values: unknown[] }): void;
  execute(message: { portal: string; rows: number }): void;
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { destroy(error?: Error): void };
}
const pgQuery = Query.prototype as unknown as {
  prepare(connection: PgConnection): void;
  handleRowDescription(message: unknown): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: PgConnection): void;
  handleError(error: Error, connection: PgConnection): void;
  handleReadyForQuery(connection: PgConnection): void;
};

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
 * the result's field list and empty row from the answer each time (`addFields`, 4 % of a
 * config read). A prepared statement's result columns cannot change while it exists
 * (PostgreSQL refuses to run it with "cached plan must not change result type"), so a
 * connection's first execution of a statement describes it, and the later ones skip the
 * Describe and reuse what the first learned (ADR 0055); the type parsers are still looked up
 * on every execution, as pg does, so a parser set later applies. Statements that return no
 * columns are described every time, as before.
 */
class NamedQuery extends Query {
  /**
   * Go out ahead of this statement, in the same write and before the same Sync: the
   * transaction's BEGIN, writes deferred to it (see `Owed` below). The server runs them in
   * order; their answers are not this statement's.
   */
  readonly carried: readonly Carried[];
  /** How many of `carried` the server has answered; an error before all are is one of theirs. */
  private carriedAnswered = 0;
  /** The carried statement the server refused, if one was. */
  failedCarried?: Carried;
  /** The connection it runs on: pg's handleRowDescription is not told. */
  private connection?: PgConnection;
  /** pg's prepare is running: an error now is a value the client could not bind. */
  private preparing = false;
  private bindFailed = false;

  constructor(name: string, text: string, values: unknown[], carried: readonly Carried[] = []) {
    super(text, values);
    this.carried = carried;
    this.internals.name = name;
    // Parse/Bind/Execute even without values (a COMMIT that carries writes).
    this.internals.queryMode = 'extended';
  }

  private get internals(): QueryInternals {
    return this as unknown as QueryInternals;
  }

  /** pg's own preparation (parse when new, bind, describe, execute, sync) less the Describe. */
  prepare(connection: PgConnection): void {
    // Unnamed (a text not seen twice yet): nothing is known of it on any connection.
    const shape = this.internals.name
      ? shapes.get(connection)?.get(this.internals.name)
      : undefined;
    this.connection = connection;
    // Executed before the statement, in the one pipeline its Sync ends: pg corks the stream
    // around prepare, so all of it goes out in one write. Their values are pg's already.
    for (const statement of this.carried) {
      connection.parse({ text: statement.text, name: '' });
      connection.bind({ portal: '', statement: '', values: statement.values });
      connection.execute({ portal: '', rows: 0 });
    }
    this.preparing = true;
    try {
      if (!shape) return pgQuery.prepare.call(this, connection);
      // Shadowed on this connection for the call alone (the prototype's comes back after).
      connection.describe = noDescribe;
      try {
        pgQuery.prepare.call(this, connection);
      } finally {
        delete (connection as Partial<PgConnection>).describe;
      }
    } finally {
      this.preparing = false;
    }
    if (!this.bindFailed) this.takeShape(shape);
  }

  /** What pg's handleRowDescription would have done with the statement's description. */
  private takeShape(shape: RowShape): void {
    const result = this.internals._result;
    const types = result._types ?? (pgTypes as TypeSource);
    // A list of its own per result: a caller that changes one cannot change the next.
    result.fields = shape.fields.slice();
    result._parsers = shape.fields.map((field) =>
      types.getTypeParser(field.dataTypeID, field.format ?? 'text'),
    );
    result._prebuiltEmptyResultObject = shape.emptyRow;
    // Rows are kept unless only 'row' listeners want them, as pg decides.
    this.internals._accumulateRows =
      Boolean(this.internals.callback) || this.listenerCount('row') === 0;
  }

  private get carriedUnanswered(): boolean {
    return this.carriedAnswered < this.carried.length;
  }

  /** The carried statements' completions come first and are not results of this statement. */
  handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (this.carriedUnanswered) {
      this.carriedAnswered++;
      return;
    }
    pgQuery.handleCommandComplete.call(this, message, connection);
  }

  /** Rows a carried write returns (the outbox's notifications) are not this statement's. */
  handleDataRow(message: unknown): void {
    if (!this.carriedUnanswered) pgQuery.handleDataRow.call(this, message);
  }

  handleRowDescription(message: unknown): void {
    pgQuery.handleRowDescription.call(this, message);
    const connection = this.connection;
    const result = this.internals._result;
    if (!this.internals.name) return;
    if (!connection || result._parsers === undefined || !result._prebuiltEmptyResultObject) return;
    let known = shapes.get(connection);
    if (!known) shapes.set(connection, (known = new Map()));
    known.set(this.internals.name, {
      fields: result.fields.slice(),
      emptyRow: result._prebuiltEmptyResultObject,
    });
  }

  handleError(error: Error, connection: PgConnection): void {
    if (this.preparing) this.bindFailed = true;
    else if (this.carriedUnanswered) this.failedCarried = this.carried[this.carriedAnswered];
    pgQuery.handleError.call(this, error, connection);
  }

  /**
   * A value pg could not bind makes it close the statement on the server, yet it still counts
   * the statement as parsed on this connection (and records the parse it sent with it when
   * the statement was new): every later execution there would fail with "prepared statement
   * does not exist". Once the server has answered, the statement is forgotten on this
   * connection, so that the next execution prepares it again.
   */
  handleReadyForQuery(connection: PgConnection): void {
    if (this.bindFailed) {
      const name = this.internals.name;
      delete connection.parsedStatements[name];
      delete connection.submittedNamedStatements[name];
      shapes.get(connection)?.delete(name);
    }
    pgQuery.handleReadyForQuery.call(this, connection);
  }
}

/** A statement sent ahead of a query, in its pipeline (see NamedQuery's `carried`). */
interface Carried {
  text: string;
  /** As pg binds them (`prepareValue`'s output): strings, buffers and nulls. */
  values: unknown[];
}

const BEGIN: Carried = { text: 'BEGIN', values: [] };

/**
 * What a client's transaction has not sent yet, sent with its next statement (ADR 0066, 0067).
 *
 * - `begin`: TypeORM opens a transaction with `START TRANSACTION` and waits for the answer
 *   before the first statement, a round trip that carries nothing. `START TRANSACTION` is
 *   answered here at once, and BEGIN is owed.
 * - `writes`: statements whose answer the transaction does not need (`deferWrite`).
 *
 * The next statement carries them: a statement with parameters, sent as TypeORM sends them
 * (text and values, a promise), goes out as their Parse/Bind/Execute and then its own, with
 * one Sync, so the server runs all in order and answers once. So does a COMMIT. A statement
 * that cannot carry them (no parameters, a callback, or a named statement not yet parsed on
 * this connection, whose `ParseComplete` pg could not tell from theirs) is preceded by them
 * on their own. A ROLLBACK, or a ROLLBACK TO a savepoint, drops the writes unsent (they would
 * be undone); a ROLLBACK with BEGIN unsent sends nothing, there being no transaction on the
 * server, and so does a COMMIT with nothing owed but BEGIN.
 *
 * It is owed for the client's current checkout from the pool only (pg-pool gives the client a
 * new `release` at each checkout): a client handed back with a debt cannot pass it to its
 * next user.
 */
interface Owed {
  release: unknown;
  begin: boolean;
  writes: Carried[];
}

const owed = new WeakMap<Client, Owed>();

function owedBy(client: Client): Owed | undefined {
  const debt = owed.get(client);
  return debt && debt.release === releaseOf(client) ? debt : undefined;
}

function releaseOf(client: Client): unknown {
  return (client as unknown as { release?: unknown }).release;
}

function connectionOf(client: Client): PgConnection {
  return (client as unknown as { connection: PgConnection }).connection;
}

/** What pg answers for a command without rows, for the ones answered here. */
function answered(command: string): QueryResult {
  return { command, rowCount: null, oid: 0, rows: [], fields: [] } as unknown as QueryResult;
}

/** A text without values, as TypeORM sends one (`databaseConnection.query(text, parameters)`). */
function bareText(args: unknown[]): string | undefined {
  const [text, values] = args;
  const bare =
    typeof text === 'string' &&
    args.length <= 2 &&
    (values === undefined || (Array.isArray(values) && values.length === 0));
  return bare ? text : undefined;
}

/** `query` submitted as pg submits a query object without a callback: as a promise. */
function submitted(client: Client, query: NamedQuery): Promise<QueryResult> {
  // As pg answers a query without a callback: a promise, rejected with a stack trace that
  // leads back to the caller rather than to the socket's read.
  return new Promise<QueryResult>((resolve, reject) => {
    (query as unknown as { callback: QueryCallback }).callback = (error, result) =>
      error ? reject(error) : resolve(result);
    simpleQuery.call(client, query);
  }).catch((error: Error) => {
    Error.captureStackTrace(error);
    throw error;
  });
}

/** BEGIN when owed, then the writes: what the client's next statement carries. */
function carriedBy(debt: Owed): Carried[] {
  return debt.begin ? [BEGIN, ...debt.writes] : debt.writes;
}

/** The refusal of what went ahead of a statement on its own (`sendAhead`), once answered. */
interface AheadOutcome {
  error?: Error;
}

/**
 * `carried` on its own (at least one statement), ahead of what follows on this client. If
 * BEGIN fails, the connection is closed, so that nothing queued behind it runs outside the
 * transaction; a write's refusal is kept for the statement that follows to answer with.
 */
function sendAhead(client: Client, carried: readonly Carried[]): AheadOutcome {
  const outcome: AheadOutcome = {};
  const last = carried[carried.length - 1];
  const query = new NamedQuery('', last.text, last.values, carried.slice(0, -1));
  (query as unknown as { callback: QueryCallback }).callback = (error) => {
    if (!error) return;
    if ((query.failedCarried ?? last) === BEGIN) connectionOf(client).stream.destroy(error);
    else outcome.error = error;
  };
  simpleQuery.call(client, query);
  return outcome;
}

/**
 * The statement's own answer, unless what went ahead of it failed: then that failure, which
 * is the one its caller must see (the statement itself may have succeeded, as a
 * `ROLLBACK TO SAVEPOINT` in an aborted transaction does).
 */
function answeringFor(ahead: AheadOutcome, args: unknown[], run: () => unknown): unknown {
  const callback = args[args.length - 1];
  if (typeof callback === 'function') {
    const answer = callback as QueryCallback;
    args[args.length - 1] = ((error, result) =>
      ahead.error ? answer(ahead.error, result) : answer(error, result)) as QueryCallback;
    return run();
  }
  const result = run();
  if (!(result instanceof Promise)) return result;
  return result.then(
    (value: unknown) => (ahead.error ? Promise.reject(ahead.error) : value),
    (error: unknown) => Promise.reject(ahead.error ?? error),
  );
}

/** The query of a client with a debt (see `Owed`): the debt goes out with it, or before it. */
function queryPaying(client: Client, debt: Owed, args: unknown[]): unknown {
  owed.delete(client);
  const bare = bareText(args);
  if (bare === 'ROLLBACK') {
    // The writes are dropped unsent; with BEGIN unsent too, there is no transaction to end.
    return debt.begin ? Promise.resolve(answered('ROLLBACK')) : preparingQuery.apply(client, args);
  }
  // Every write owed came after the newest savepoint was made (making one is a statement,
  // which took the writes before it along): rolling back to any savepoint undoes them.
  const toSavepoint = bare !== undefined && /^ROLLBACK TO /i.test(bare);
  const carried = toSavepoint ? carriedBy({ ...debt, writes: [] }) : carriedBy(debt);
  if (carried.length === 0) return preparingQuery.apply(client, args);
  if (bare === 'COMMIT') {
    if (debt.writes.length === 0) return Promise.resolve(answered('COMMIT'));
    return submitted(client, new NamedQuery('', 'COMMIT', [], carried));
  }
  const [text, values] = args;
  if (typeof text === 'string' && Array.isArray(values) && values.length > 0 && args.length === 2) {
    const name = statementName(text) ?? '';
    if (name === '' || connectionOf(client).parsedStatements[name] !== undefined) {
      return submitted(client, new NamedQuery(name, text, values, carried));
    }
  }
  const ahead = sendAhead(client, carried);
  return answeringFor(ahead, args, () => preparingQuery.apply(client, args));
}

// pg's `query` has a dozen overloads; one function serves them all and is typed as pg's.
function preparingQuery(this: Client, ...args: unknown[]): unknown {
  const debt = owedBy(this);
  if (debt) return queryPaying(this, debt, args);
  if (bareText(args) === 'START TRANSACTION') {
    owed.set(this, { release: releaseOf(this), begin: true, writes: [] });
    return Promise.resolve(answered('BEGIN'));
  }
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
  return submitted(this, query);
}

PreparingClient.prototype.query = preparingQuery as unknown as Client['query'];

/**
 * Adds `text` to the writes of the transaction open on `client`, sent with its next statement
 * or its COMMIT (see `Owed`); false when `client` cannot defer it (another client class), and
 * the caller runs it itself.
 */
export function deferOn(client: unknown, text: string, values: readonly unknown[]): boolean {
  if (!(client instanceof PreparingClient)) return false;
  // pg's own mapping, now: a value it cannot send fails the caller, not the next statement.
  const write: Carried = { text, values: values.map((value) => prepareValue(value)) };
  const debt = owedBy(client);
  if (debt) debt.writes.push(write);
  else owed.set(client, { release: releaseOf(client), begin: false, writes: [write] });
  return true;
}
