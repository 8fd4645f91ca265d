import { randomFillSync } from 'node:crypto';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Parses a W3C `traceparent`; undefined when absent or malformed (the spec says: restart the trace). */
export function parseTraceparent(
  value: string | undefined,
): { traceId: string; parentId: string; flags: string } | undefined {
  const match = value ? TRACEPARENT.exec(value.trim()) : null;
  if (!match || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return undefined;
  return { traceId: match[1], parentId: match[2], flags: match[3] };
}

/** A `traceparent` for our own span: continues the caller's trace, or starts one. */
export function childTraceparent(incoming: string | undefined): string {
  const parent = parseTraceparent(incoming);
  const traceId = parent?.traceId ?? randomHex(16);
  const flags = parent?.flags ?? '01';
  return `00-${traceId}-${randomHex(8)}-${flags}`;
}

/**
 * Random ids for every request and every hop: drawn from a pool filled 4 KiB at a time, not
 * with a call into the CSPRNG per id (it showed among the hottest functions of a request).
 */
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

function randomHex(bytes: number): string {
  if (randomOffset + bytes > randomPool.length) {
    randomPool = randomFillSync(Buffer.allocUnsafe(RANDOM_POOL_BYTES));
    randomOffset = 0;
  }
  const hex = randomPool.toString('hex', randomOffset, randomOffset + bytes);
  randomOffset += bytes;
  return hex;
}
