import { IsOptional, Matches } from 'class-validator';
import { ConfigError, loadConfig } from './load-config';
import { RuntimeConfig } from './runtime.config';

/** A service's config with a key, as auth's and the secrets' are. */
class KeyedConfig extends RuntimeConfig {
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'SIGNING_KEY must be 32 bytes in base64' })
  SIGNING_KEY?: string;

  @IsOptional()
  @Matches(/^\d+$/, { message: 'TOKEN_LIFETIME_SECONDS must be a number of seconds' })
  TOKEN_LIFETIME_SECONDS?: string;

  @IsOptional()
  @Matches(/^[a-z]+$/, { message: 'PARTNER_TOKEN must be lower-case letters' })
  PARTNER_TOKEN?: string;
}

describe('loadConfig', () => {
  it('gives the defaults that make standalone mode work with nothing set', () => {
    const config = loadConfig(RuntimeConfig, {});
    expect(config).toMatchObject({
      PORT: 3000,
      COMANDA_ENVIRONMENT: 'test',
      COMANDA_PUBLIC_URL: 'http://localhost:3000',
      OUTBOX_POLL_MS: 1000,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('converts numbers from the environment', () => {
    expect(loadConfig(RuntimeConfig, { PORT: '8080', OUTBOX_POLL_MS: '100' })).toMatchObject({
      PORT: 8080,
      OUTBOX_POLL_MS: 100,
    });
  });

  it('takes a statement deadline of 0 (none) or of at least a second, not a shorter one', () => {
    expect(loadConfig(RuntimeConfig, {}).DB_STATEMENT_DEADLINE_MS).toBe(10000);
    expect(loadConfig(RuntimeConfig, { DB_STATEMENT_DEADLINE_MS: '0' })).toMatchObject({
      DB_STATEMENT_DEADLINE_MS: 0,
    });
    expect(loadConfig(RuntimeConfig, { DB_STATEMENT_DEADLINE_MS: '1000' })).toMatchObject({
      DB_STATEMENT_DEADLINE_MS: 1000,
    });
    expect(() => loadConfig(RuntimeConfig, { DB_STATEMENT_DEADLINE_MS: '5' })).toThrow(
      /DB_STATEMENT_DEADLINE_MS="5" \(must not be less than 1000\)/,
    );
  });

  it('refuses a bad value and names every problem on one line, each value quoted as typed', () => {
    let caught: unknown;
    try {
      loadConfig(RuntimeConfig, {
        PORT: 'eighty',
        COMANDA_ENVIRONMENT: 'staging',
        DATABASE_URL: 'mysql://x',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as ConfigError).message;
    expect(message).toBe(
      'invalid setting PORT="eighty" (must be an integer number); ' +
        'DATABASE_URL="mysql://x" (must be a postgres:// URL); ' +
        'COMANDA_ENVIRONMENT="staging" (must be one of the following values: test, production)',
    );
  });

  it('never quotes a key, secret or token, nor the password of a URL, in the line that refuses it', () => {
    expect(() =>
      loadConfig(KeyedConfig, {
        SIGNING_KEY: 'almost-a-key',
        PARTNER_TOKEN: 'Tok3n',
        DATABASE_URL: 'mysql://app:s3cret@db:3306/comanda',
      }),
    ).toThrow(
      'invalid setting SIGNING_KEY=<not shown: 12 characters> (must be 32 bytes in base64); ' +
        'PARTNER_TOKEN=<not shown: 5 characters> (must be lower-case letters); ' +
        'DATABASE_URL="mysql://app:***@db:3306/comanda" (must be a postgres:// URL)',
    );
  });

  it('quotes a token lifetime, which is no secret', () => {
    expect(() => loadConfig(KeyedConfig, { TOKEN_LIFETIME_SECONDS: '10s' })).toThrow(
      'invalid setting TOKEN_LIFETIME_SECONDS="10s" (must be a number of seconds)',
    );
  });
});
