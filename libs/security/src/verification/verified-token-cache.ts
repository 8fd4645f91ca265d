import type { Principal } from '../principal';

interface Entry {
  principal: Principal;
  /** When the token stops being valid, in ms since the epoch (its `exp`). */
  expiresAt: number;
}

/**
 * Tokens whose signature and claims were checked once, keyed by the whole compact token (its
 * signature included, so a forged token never matches), each kept until its `exp`. Bounded:
 * beyond `capacity` the oldest entry goes. A token's meaning never changes while it is valid
 * (a revoked client's tokens stay valid until `exp`, as without the cache), so serving the
 * principal from here answers exactly what verifying again would.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): Principal | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.principal;
  }

  set(token: string, principal: Principal, expiresAtSeconds: number): void {
    const expiresAt = expiresAtSeconds * 1000;
    if (expiresAt <= this.now()) return;
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(token, { principal, expiresAt });
  }

  get size(): number {
    return this.entries.size;
  }
}
