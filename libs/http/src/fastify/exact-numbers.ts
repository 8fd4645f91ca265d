/**
 * From this magnitude on, a double no longer holds every integer: a JSON number below it
 * that is an integer is kept as written.
 */
export const EXACT_INTEGER_LIMIT = 2 ** 53;

// A string (skipped whole, escapes included) or a number literal outside one.
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/g;
// A number as String() writes it.
const WRITTEN_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;

/**
 * The values of the number literals of a JSON text that JSON.parse does not keep as written:
 * a 64-bit id `12345678901234567890` reads as 12345678901234567000, and would be stored and
 * answered so without a word. Only literals of magnitude 2^53 or more are looked at (below,
 * an integer is kept exactly); one is kept when the number read is written back as the same
 * decimal (`1e20` and `2e300` are; `9007199254740993` is not, nor is 2^60 written out,
 * `1152921504606846976`, which comes back as `1152921504606847000`). Meant for a text
 * already parsed as JSON, whose numbers stand outside strings.
 */
export function inexactNumbers(text: string): Set<number> {
  const inexact = new Set<number>();
  for (const match of text.matchAll(STRING_OR_NUMBER)) {
    const [literal, sign, whole, fraction = '', exponent = '0'] = match;
    if (whole === undefined) continue;
    const value = Number(literal);
    if (!Number.isFinite(value) || Math.abs(value) < EXACT_INTEGER_LIMIT) continue;
    const written = decimal(sign, whole, fraction, exponent);
    const readBack = WRITTEN_NUMBER.exec(String(value));
    if (!readBack) continue;
    const [, backSign, backWhole, backFraction = '', backExponent = '0'] = readBack;
    if (written !== decimal(backSign, backWhole, backFraction, backExponent)) inexact.add(value);
  }
  return inexact;
}

/** `sign whole.fraction e exponent` as `sign digits e scale`, digits without leading or trailing zeros. */
function decimal(sign: string, whole: string, fraction: string, exponent: string): string {
  const all = `${whole}${fraction}`.replace(/^0+/, '');
  const digits = all.replace(/0+$/, '');
  // Exponents of these sizes are small numbers: no precision is lost in the arithmetic.
  const scale = Number(exponent) - fraction.length + (all.length - digits.length);
  return `${sign}${digits}e${scale}`;
}
