import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * The transaction a use case runs in. Use cases take it as an argument and never open one:
 * the caller (an HTTP controller through `UnitOfWork`, an inbox consumer, a timer) holds it,
 * so a use case called from a consumer commits with the consumer's inbox mark, once.
 */
export type Tx = EntityManager;

/** Opens the one transaction of an HTTP request (or a script) and hands it down. */
@Injectable()
export class UnitOfWork {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in a new transaction: its writes and outbox rows commit together or not at all. */
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}

let savepoints = 0;

/**
 * Runs `work` inside a savepoint of `tx` and always rolls back to it: every check runs and
 * the result is built, but nothing `work` wrote stays (a dry run). The caller's transaction
 * goes on as before, whether `work` succeeded or failed.
 */
export async function rolledBack<T>(tx: Tx, work: (tx: Tx) => Promise<T>): Promise<T> {
  savepoints = (savepoints + 1) % 1_000_000;
  const name = `comanda_dry_run_${savepoints}`;
  await tx.query(`SAVEPOINT ${name}`);
  try {
    return await work(tx);
  } finally {
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    await tx.query(`RELEASE SAVEPOINT ${name}`);
  }
}

type WithoutTx<F> = F extends (tx: Tx, ...args: infer A) => infer R ? (...args: A) => R : never;

/** `service` with the named use cases each run in a transaction of their own. */
export type Transactional<S, K extends keyof S> = Omit<S, K> & { [M in K]: WithoutTx<S[M]> };

/**
 * `service` as a controller calls it: each named use case runs in its own transaction of
 * `unitOfWork`. For tests and scripts that drive use cases without an HTTP request.
 */
export function transactional<S extends object, K extends keyof S>(
  service: S,
  unitOfWork: UnitOfWork,
  useCases: readonly K[],
): Transactional<S, K> {
  const names = new Set<PropertyKey>(useCases);
  return new Proxy(service, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (!names.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        unitOfWork.run((tx) =>
          (value as (...all: unknown[]) => Promise<unknown>).apply(target, [tx, ...args]),
        );
    },
  }) as unknown as Transactional<S, K>;
}

/**
 * The database's clock, read through `tx`. Deadlines are stored, compared and fired by the
 * database, so a use case that computes one (or compares with one) reads "now" here rather
 * than from its own node, whose clock may be off.
 */
export async function databaseNow(tx: Tx): Promise<Date> {
  const [row] = (await tx.query('SELECT clock_timestamp() AS now')) as Array<{ now: Date }>;
  return row.now;
}
