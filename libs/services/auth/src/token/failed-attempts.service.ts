import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AUTH_CONFIG, type AuthConfig } from '../auth.config';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { TooManyFailedAttemptsError } from '../auth.errors';

export interface AttemptSubjects {
  clientId: string;
  sourceIp: string;
}

/** Failures within the window, per subject. */
export interface FailureCounts {
  client: number;
  ip: number;
}

/**
 * Failed client authentications, counted in Postgres so every replica sees the same count.
 * The lock is per (client id, source address): a stranger guessing a client's secret locks
 * out only their own address for that client, never the client's real callers. Failures of
 * one address (any client ids) only slow its answers down, more with each failure: behind a
 * load balancer every caller may share one address, and it must not lock everybody out.
 * At the limit the token endpoint answers 429 until enough failures left the window. Refused
 * attempts are not counted, so the lock lifts one window after the last counted failure.
 */
@Injectable()
export class FailedAttemptsService {
  private readonly table: string;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {
    this.table = `"${String((dataSource.options as PostgresConnectionOptions).schema)}"."failed_attempts"`;
  }

  /** The failures within the window: read with the client itself in one statement. */
  countsSql(clientParam: number, ipParam: number, windowParam: number): string {
    const count = (param: number) =>
      `(SELECT count(*)::int FROM ${this.table}
         WHERE subject = $${param} AND attempted_at > now() - make_interval(secs => $${windowParam}))`;
    return `${count(clientParam)} AS client_failures, ${count(ipParam)} AS ip_failures`;
  }

  /**
   * The subjects as stored, for the parameters of `countsSql`: `client` counts the failures
   * of this client id from this address (the lock), `ip` those of the address (a slow-down).
   */
  subjectsOf(subjects: AttemptSubjects): { client: string; ip: string; window: number } {
    return {
      client: pairSubject(subjects),
      ip: ipSubject(subjects.sourceIp),
      window: this.config.AUTH_FAILURE_WINDOW_SECONDS,
    };
  }

  /**
   * Throws 429 with Retry-After when this client id is locked out from this address, given
   * the failure counts read beforehand; Retry-After is only looked up then. An address's own
   * failures never lock anybody out (behind a load balancer all callers may share it).
   */
  async assertBelowLimits(subjects: AttemptSubjects, counts: FailureCounts): Promise<void> {
    const limit = this.config.AUTH_FAILURE_LIMIT;
    if (counts.client < limit) return;
    const recent = await this.recent(pairSubject(subjects), limit);
    if (recent.count >= limit) throw new TooManyFailedAttemptsError(recent.retryAfter);
  }

  /** Records a failure; resolves once the caller has been slowed down as much as it earned. */
  async recordFailure(subjects: AttemptSubjects): Promise<void> {
    const window = this.config.AUTH_FAILURE_WINDOW_SECONDS;
    const subjectsToRecord = [pairSubject(subjects), ipSubject(subjects.sourceIp)];
    await this.dataSource.query(
      `DELETE FROM ${this.table}
        WHERE subject = ANY($1) AND attempted_at < now() - make_interval(secs => $2)`,
      [subjectsToRecord, window],
    );
    await this.dataSource.query(`INSERT INTO ${this.table} (subject) SELECT unnest($1::text[])`, [
      subjectsToRecord,
    ]);
    const pair = await this.recent(subjectsToRecord[0], this.config.AUTH_FAILURE_LIMIT);
    const address = await this.recent(subjectsToRecord[1], this.config.AUTH_FAILURE_LIMIT_PER_IP);
    // Back-off: a guessing address is slowed down whichever client ids it tries.
    const over = Math.max(
      pair.count - this.config.AUTH_FAILURE_SLOWDOWN_AFTER,
      address.count >= this.config.AUTH_FAILURE_LIMIT_PER_IP
        ? address.count - this.config.AUTH_FAILURE_LIMIT_PER_IP
        : -1,
    );
    if (over >= 0) {
      // Slows a guessing loop without holding any state: the delay only ends this request.
      await new Promise((resolve) => setTimeout(resolve, Math.min(200 * (over + 1), 2000)));
    }
  }

  /** A correct secret clears the failures of its client id from its address (called only when there are some). */
  async recordSuccess(subjects: AttemptSubjects): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${this.table} WHERE subject = $1`, [
      pairSubject(subjects),
    ]);
  }

  private async recent(
    subject: string,
    limit: number,
  ): Promise<{ count: number; retryAfter: number }> {
    const window = this.config.AUTH_FAILURE_WINDOW_SECONDS;
    // The limit-th most recent failure is the one whose leaving the window lifts the lock.
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS count,
              ceil(extract(epoch FROM (
                (SELECT attempted_at FROM ${this.table}
                  WHERE subject = $1 AND attempted_at > now() - make_interval(secs => $2)
                  ORDER BY attempted_at DESC OFFSET $3 - 1 LIMIT 1)
                + make_interval(secs => $2) - now())))::int AS retry_after
         FROM ${this.table}
        WHERE subject = $1 AND attempted_at > now() - make_interval(secs => $2)`,
      [subject, window, limit],
    )) as Array<{ count: number; retry_after: number | null }>;
    return { count: row.count, retryAfter: Math.max(1, row.retry_after ?? 1) };
  }
}

function pairSubject({ clientId, sourceIp }: AttemptSubjects): string {
  return `client:${clientId}@${sourceIp}`;
}

function ipSubject(ip: string): string {
  return `ip:${ip}`;
}
