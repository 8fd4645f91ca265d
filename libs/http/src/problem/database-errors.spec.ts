import { problemFromDatabaseError } from './database-errors';

function queryFailed(code: string): Error {
  return Object.assign(new Error('duplicate key value violates unique constraint "pk"'), {
    driverError: { code },
  });
}

describe('database errors a request caused', () => {
  it('makes a unique violation a 409 conflict that names no constraint', () => {
    const problem = problemFromDatabaseError(queryFailed('23505'));
    expect(problem).toMatchObject({ status: 409, code: 'resource.conflict' });
    expect(problem?.detail).not.toContain('pk');
  });

  it.each(['22001', '54000'])('makes SQLSTATE %s (value too long) a 400', (code) => {
    expect(problemFromDatabaseError(queryFailed(code))).toMatchObject({
      status: 400,
      code: 'request.value_too_long',
    });
  });

  it('reads the code of a pg error itself, and leaves other errors alone', () => {
    expect(problemFromDatabaseError(Object.assign(new Error('x'), { code: '23505' }))?.status).toBe(
      409,
    );
    expect(problemFromDatabaseError(queryFailed('40P01'))).toBeUndefined();
    expect(problemFromDatabaseError(new Error('boom'))).toBeUndefined();
    expect(problemFromDatabaseError({ code: '23505' })).toBeUndefined();
  });

  it.each([
    [
      'a connection refused',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ],
    ['a connection lost under a query', new Error('Connection terminated unexpectedly')],
    [
      "no connection within the pool's deadline",
      new Error('timeout exceeded when trying to connect'),
    ],
    ['a server shutting down (TypeORM around pg)', queryFailed('57P01')],
    ['a connection exception', queryFailed('08006')],
    ['no connection slot left', queryFailed('53300')],
    [
      'a cause that is one of these',
      new Error('reading failed', { cause: new Error('Connection terminated') }),
    ],
  ])('makes %s a 503 with Retry-After that shows nothing of the error', (_name, error) => {
    const problem = problemFromDatabaseError(error);
    expect(problem).toMatchObject({
      status: 503,
      code: 'service.unavailable',
      headers: { 'Retry-After': '5' },
    });
    expect(problem?.detail).not.toMatch(/ECONN|terminated|timeout|57P01/);
  });
});
