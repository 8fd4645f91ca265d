// A string (skipped whole, escapes included) or a number literal outside one.
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/g;
// A number as String() writes it.
const WRITTEN_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;
/**
 * A literal JSON.parse may not keep: sixteen or more digits (a dot among them or not), or an
 * exponent. Every other literal has at most fifteen significant digits and a magnitude
 * between 1e-15 and 1e15, which a double always gives back as written.
 */
const MAY_CHANGE = /\d[\d.]{15}|\d[eE]/;

/**
 * The values of the number literals of a JSON text that JSON.parse does not keep as written,
 * that is, whose number String() (and so every answer) writes as another decimal:
 * - a 64-bit id `12345678901234567890` reads as 12345678901234567000;
 * - `1.00000000000000000001` reads as 1, `3.14159265358979323846` as 3.141592653589793;
 * - `1e-400` reads as 0 and `2.5e-324` as 5e-324 (below what a double holds).
 * `1e20`, `2e300`, `1.50`, `0.1` and `-0` are kept. So is none of 2^60 written out,
 * `1152921504606846976`, which comes back as `1152921504606847000`. Meant for a text already
 * parsed as JSON, whose numbers stand outside strings; empty without a scan when no literal
 * can have changed, which is most texts.
 */
export function inexactNumbers(text: string): ReadonlySet<number> {
  const inexact = new Set<number>();
  if (!MAY_CHANGE.test(text)) return inexact;
  for (const match of text.matchAll(STRING_OR_NUMBER)) {
    const [literal, sign, whole, fraction = '', exponent] = match;
    if (whole === undefined) continue;
    if (exponent === undefined && whole.length + fraction.length <= 15) continue;
    const value = Number(literal);
    // Beyond a double's range: the guard refuses Infinity on its own.
    if (!Number.isFinite(value)) continue;
    const readBack = WRITTEN_NUMBER.exec(String(value));
    if (!readBack) continue;
    const [, backSign, backWhole, backFraction = '', backExponent = '0'] = readBack;
    const written = decimal(sign, whole, fraction, exponent ?? '0');
    if (written !== decimal(backSign, backWhole, backFraction, backExponent)) inexact.add(value);
  }
  return inexact;
}

/**
 * `sign whole.fraction e exponent` as `sign digits e scale`, digits without leading or
 * trailing zeros; any zero is `0`, its sign and exponent aside (JSON writes -0 as 0).
 */
function decimal(sign: string, whole: string, fraction: string, exponent: string): string {
  const all = `${whole}${fraction}`.replace(/^0+/, '');
  const digits = all.replace(/0+$/, '');
  if (digits === '') return '0';
  // Exponents JSON.parse reads as finite numbers are small: no precision is lost here.
  const scale = Number(exponent) - fraction.length + (all.length - digits.length);
  return `${sign}${digits}e${scale}`;
}
