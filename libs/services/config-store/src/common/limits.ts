import { MAX_IDENTIFIER_LENGTH } from '@comanda/http';

/** Size limits of the configuration group (the spec leaves them open; see ADR 0007). */
export const LIMITS = {
  /** The platform's one identifier length (DTOs, route parameters, columns). */
  idLength: MAX_IDENTIFIER_LENGTH,
  versionLength: 100,
  extensionReferences: 100,
  /** Serialized JSON size of a config's `values`. */
  valuesBytes: 256 * 1024,
} as const;
