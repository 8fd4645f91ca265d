import { ApiError } from './api-error';

describe('ApiError.from', () => {
  it('reads a problem+json body', () => {
    const error = ApiError.from(
      409,
      'Conflict',
      JSON.stringify({
        type: 'https://comanda.dev/problems/tenant.already_exists',
        title: 'Tenant exists',
        status: 409,
        detail: 'Tenant acme already exists.',
        code: 'tenant.already_exists',
        requestId: 'r-1',
        errors: [{ path: 'id', message: 'taken' }],
      }),
      'header-id',
    );
    expect(error).toMatchObject({
      status: 409,
      title: 'Tenant exists',
      detail: 'Tenant acme already exists.',
      code: 'tenant.already_exists',
      requestId: 'r-1',
      errors: [{ path: 'id', message: 'taken' }],
    });
  });

  it('reads an OAuth error body (RFC 6749 §5.2)', () => {
    const error = ApiError.from(
      401,
      'Unauthorized',
      '{"error":"invalid_client","error_description":"unknown client"}',
      'r-2',
    );
    expect(error).toMatchObject({
      status: 401,
      title: 'invalid_client',
      detail: 'unknown client',
      requestId: 'r-2',
    });
  });

  it('keeps a text body as the detail', () => {
    expect(ApiError.from(502, 'Bad Gateway', 'upstream down\n', undefined)).toMatchObject({
      title: 'Bad Gateway',
      detail: 'upstream down',
    });
  });
});
