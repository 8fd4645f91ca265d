import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AUTH_CONFIG, type AuthConfig } from '../auth.config';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { TooManyFailedAttemptsError } from '../auth.errors';

export interface AttemptSubjects {
  clientId: string;
  sourceIp: string;
}

/**
 * Failed client authentications, counted in Postgres so every replica sees the same count.
 * Under the limit, answers are slowed a little more with each failure; at the limit the
 * token endpoint answers 429 until enough failures left the window. Refused attempts are
 * not counted, so the lock lifts one window after the last counted failure.
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

  /** Throws 429 with Retry-After when the client id or the source address is locked out. */
  async assertAllowed(subjects: AttemptSubjects): Promise<void> {
    const limits: Array<[string, number]> = [
      [clientSubject(subjects.clientId), this.config.AUTH_FAILURE_LIMIT],
      [ipSubject(subjects.sourceIp), this.config.AUTH_FAILURE_LIMIT_PER_IP],
    ];
    for (const [subject, limit] of limits) {
      const { count, retryAfter } = await this.recent(subject, limit);
      if (count >= limit) throw new TooManyFailedAttemptsError(retryAfter);
    }
  }

  /** Records a failure; resolves once the caller has been slowed down as much as it earned. */
  async recordFailure(subjects: AttemptSubjects): Promise<void> {
    const window = this.config.AUTH_FAILURE_WINDOW_SECONDS;
    const subjectsToRecord = [clientSubject(subjects.clientId), ipSubject(subjects.sourceIp)];
    await this.dataSource.query(
      `DELETE FROM ${this.table}
        WHERE subject = ANY($1) AND attempted_at < now() - make_interval(secs => $2)`,
      [subjectsToRecord, window],
    );
    await this.dataSource.query(`INSERT INTO ${this.table} (subject) SELECT unnest($1::text[])`, [
      subjectsToRecord,
    ]);
    const { count } = await this.recent(subjectsToRecord[0], this.config.AUTH_FAILURE_LIMIT);
    const over = count - this.config.AUTH_FAILURE_SLOWDOWN_AFTER;
    if (over >= 0) {
      // Slows a guessing loop without holding any state: the delay only ends this request.
      await new Promise((resolve) => setTimeout(resolve, Math.min(200 * (over + 1), 2000)));
    }
  }

  /** A correct secret clears the failures of its client id. */
  async recordSuccess(clientId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${this.table} WHERE subject = $1`, [
      clientSubject(clientId),
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

function clientSubject(clientId: string): string {
  return `client:${clientId}`;
}

function ipSubject(ip: string): string {
  return `ip:${ip}`;
}
