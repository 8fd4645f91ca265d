import { importJWK, type CryptoKey, type JSONWebKeySet, type JWK } from 'jose';

/** Why no key could be given for a `kid`. */
export type KeyMiss =
  /** The issuer's key set does not have it (or had not, at the last fetch within the cool-down). */
  | 'unknown_kid'
  /** The issuer answered 404: no such tenant. */
  | 'unknown_tenant'
  /** The key set could not be fetched: the caller is not at fault. */
  | 'unavailable';

export type KeyLookup = { key: CryptoKey; alg: string } | { miss: KeyMiss; detail?: string };

/** The issuer answered 404 for the tenant: thrown by a fetcher. */
export class UnknownTenantError extends Error {}

export interface IssuerKeysOptions {
  /** Fetches the issuer's JWKS; throws `UnknownTenantError` on 404, anything else when unreachable. */
  fetch: () => Promise<JSONWebKeySet>;
  /** At most one fetch per cool-down, whatever the tokens ask for. */
  cooldownMs: number;
  now: () => number;
}

interface KnownKey {
  /** The JWK as published, to tell a re-published key from a new one under the same kid. */
  published: string;
  key: Promise<CryptoKey>;
  alg: string;
}

/** Unknown kids remembered per issuer at most; beyond it the oldest is forgotten. */
const MAX_UNKNOWN_KIDS = 1000;
/** How long a kid the issuer did not have is refused from memory, whatever the cool-down. */
const UNKNOWN_KID_TTL_MS = 5 * 60_000;
const SIGNING_ALGORITHMS = new Set(['ES256', 'RS256']);

/**
 * The public signing keys of one issuer (one tenant), each imported once per `kid`.
 *
 * A known `kid` is answered from memory, never with a network call, whatever happens to
 * later fetches (a failed or refused fetch keeps the keys there are). An unknown `kid` may
 * trigger a fetch, but at most one per cool-down for the issuer; a `kid` still unknown after
 * a fetch goes into a negative cache (refused from memory for five minutes), and every
 * unknown `kid` within the cool-down is refused from memory too. So forged tokens with random kids cost no network call and cannot
 * use up a budget the real keys need (ADR 0017).
 */
export class IssuerKeys {
  private readonly keys = new Map<string, KnownKey>();
  private readonly unknownKids = new Map<string, number>();
  private fetchedAt: number | undefined;
  private lastMiss: { miss: KeyMiss; detail?: string } | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(private readonly options: IssuerKeysOptions) {}

  /** Whether the issuer's key set was fetched and had keys. */
  hasKeys(): boolean {
    return this.keys.size > 0;
  }

  async lookup(kid: string): Promise<KeyLookup> {
    const known = this.keys.get(kid);
    if (known) return { key: await known.key, alg: known.alg };
    if (this.inFlight) {
      await this.inFlight;
      return this.answerFromMemory(kid);
    }
    if (this.knownUnknown(kid)) return { miss: 'unknown_kid' };
    if (this.coolingDown()) return this.answerFromMemory(kid);
    this.inFlight = this.refresh().finally(() => (this.inFlight = undefined));
    await this.inFlight;
    const answer = await this.answerFromMemory(kid);
    if ('miss' in answer && answer.miss === 'unknown_kid') this.rememberUnknown(kid);
    return answer;
  }

  private async answerFromMemory(kid: string): Promise<KeyLookup> {
    const known = this.keys.get(kid);
    if (known) return { key: await known.key, alg: known.alg };
    // Within the cool-down after a failed fetch, the failure stands (no fetch per token).
    if (this.lastMiss) return this.lastMiss;
    return { miss: 'unknown_kid' };
  }

  private coolingDown(): boolean {
    return (
      this.fetchedAt !== undefined && this.options.now() - this.fetchedAt < this.options.cooldownMs
    );
  }

  private knownUnknown(kid: string): boolean {
    const since = this.unknownKids.get(kid);
    if (since === undefined) return false;
    if (this.options.now() - since < UNKNOWN_KID_TTL_MS) return true;
    this.unknownKids.delete(kid);
    return false;
  }

  private rememberUnknown(kid: string): void {
    if (this.unknownKids.size >= MAX_UNKNOWN_KIDS) {
      const oldest = this.unknownKids.keys().next().value;
      if (oldest !== undefined) this.unknownKids.delete(oldest);
    }
    this.unknownKids.set(kid, this.options.now());
  }

  private async refresh(): Promise<void> {
    this.fetchedAt = this.options.now();
    let set: JSONWebKeySet;
    try {
      set = await this.options.fetch();
    } catch (error) {
      this.lastMiss =
        error instanceof UnknownTenantError
          ? { miss: 'unknown_tenant' }
          : { miss: 'unavailable', detail: error instanceof Error ? error.message : String(error) };
      return;
    }
    this.lastMiss = undefined;
    const next = new Map<string, KnownKey>();
    for (const jwk of Array.isArray(set?.keys) ? set.keys : []) {
      const entry = this.entryFor(jwk);
      if (entry) next.set(jwk.kid as string, entry);
    }
    // The issuer's current set is the truth: a key it no longer publishes stops verifying.
    this.keys.clear();
    for (const [kid, entry] of next) {
      this.keys.set(kid, entry);
      this.unknownKids.delete(kid);
    }
  }

  private entryFor(jwk: JWK): KnownKey | undefined {
    if (typeof jwk.kid !== 'string' || jwk.kid === '') return undefined;
    if (jwk.use !== undefined && jwk.use !== 'sig') return undefined;
    const alg = jwk.alg ?? (jwk.kty === 'EC' ? 'ES256' : jwk.kty === 'RSA' ? 'RS256' : undefined);
    if (alg === undefined || !SIGNING_ALGORITHMS.has(alg)) return undefined;
    const published = JSON.stringify(jwk);
    const existing = this.keys.get(jwk.kid);
    if (existing?.published === published) return existing;
    const key = importJWK(jwk, alg) as Promise<CryptoKey>;
    // A malformed key fails the tokens naming it, not the fetch.
    key.catch(() => undefined);
    return { published, key, alg };
  }
}
