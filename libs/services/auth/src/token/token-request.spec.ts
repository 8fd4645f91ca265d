import { OAuthError } from '@comanda/http';
import { parseTokenRequest } from './token-request';

const FORM = 'application/x-www-form-urlencoded';
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** The OAuth error `run` throws, with the Basic challenge it answers with, if any. */
function errorOf(run: () => unknown): {
  error: string;
  status: number;
  challenge: string | null;
} {
  try {
    run();
  } catch (caught) {
    if (caught instanceof OAuthError)
      return {
        error: caught.error,
        status: caught.status,
        challenge: caught.headers['www-authenticate'] ?? null,
      };
    throw caught;
  }
  throw new Error('expected an OAuthError');
}

describe('parseTokenRequest', () => {
  it('reads form-field client authentication and the requested scopes', () => {
    expect(
      parseTokenRequest(
        { grant_type: 'client_credentials', client_id: 'c', client_secret: 's', scope: 'a  b' },
        FORM,
        undefined,
      ),
    ).toEqual({ clientId: 'c', clientSecret: 's', scopes: ['a', 'b'] });
  });

  it('reads HTTP Basic with form-encoded parts; an empty scope means everything granted', () => {
    expect(
      parseTokenRequest(
        { grant_type: 'client_credentials', scope: ' ' },
        FORM,
        basic('my%3Aid', 's+1'),
      ),
    ).toEqual({
      clientId: 'my:id',
      clientSecret: 's 1',
      scopes: undefined,
    });
  });

  it('refuses Basic and a form secret together, a repeated parameter and a non-form body', () => {
    expect(
      errorOf(() =>
        parseTokenRequest(
          { grant_type: 'client_credentials', client_secret: 's' },
          FORM,
          basic('c', 's'),
        ),
      ),
    ).toMatchObject({ error: 'invalid_request', status: 400 });
    expect(
      errorOf(() =>
        parseTokenRequest({ grant_type: 'client_credentials', scope: ['a', 'b'] }, FORM, undefined),
      ),
    ).toMatchObject({ error: 'invalid_request' });
    expect(
      errorOf(() =>
        parseTokenRequest({ grant_type: 'client_credentials' }, 'application/json', undefined),
      ),
    ).toMatchObject({ error: 'invalid_request' });
  });

  it('answers unsupported_grant_type, and invalid_client with a Basic challenge however the client authenticated', () => {
    expect(
      errorOf(() => parseTokenRequest({ grant_type: 'password' }, FORM, undefined)),
    ).toMatchObject({
      error: 'unsupported_grant_type',
    });
    expect(
      errorOf(() => parseTokenRequest({ grant_type: 'client_credentials' }, FORM, undefined)),
    ).toEqual({
      error: 'invalid_client',
      status: 401,
      challenge: 'Basic realm="comanda"',
    });
    expect(
      errorOf(() => parseTokenRequest({ grant_type: 'client_credentials' }, FORM, basic('c', ''))),
    ).toEqual({
      error: 'invalid_client',
      status: 401,
      challenge: 'Basic realm="comanda"',
    });
  });
});
