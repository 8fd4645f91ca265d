import type { Principal } from '../principal';

interface Entry {
  /** The whole compact token: a lookup matches only the same token. */
  token: string;
  principal: Principal;
  /** When the token stops being valid, in ms since the epoch (its `exp`). */
  expiresAt: number;
}

/**
 * Characters of a token's end that key its entry: the last of its signature. A key is
 * hashed on every lookup, and hashing a whole token (600 characters and more) took about
 * 0.8 µs per request, ten times a key this long; the entry holds the whole token, and a
 * lookup matches only an equal one.
 */
const KEY_LENGTH = 43;

/**
 * Tokens whose signature and claims were checked once, each kept until its `exp`. A lookup
 * answers only for the same whole compact token (its signature included, so a forged token
 * never matches): entries are found by the token's end ({@link KEY_LENGTH}) and compared
 * whole. Two valid tokens ending alike (signatures are random: practically never) share a
 * slot, the latest verified one kept. Bounded: beyond `capacity` the oldest entry goes. A
 * token's meaning never changes while it is valid (a revoked client's tokens stay valid until
 * `exp`, as without the cache), so serving the principal from here answers exactly what
 * verifying again would.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): Principal | undefined {
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (entry?.token !== token) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  set(token: string, principal: Principal, expiresAtSeconds: number): void {
    const expiresAt = expiresAtSeconds * 1000;
    if (expiresAt <= this.now()) return;
    const key = keyOf(token);
    if (this.entries.size >= this.capacity && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { token, principal, expiresAt });
  }

  get size(): number {
    return this.entries.size;
  }
}

function keyOf(token: string): string {
  return token.length > KEY_LENGTH ? token.slice(token.length - KEY_LENGTH) : token;
}
