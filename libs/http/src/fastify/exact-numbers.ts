// A number as String() writes it.
const WRITTEN_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;
/**
 * A literal JSON.parse may not keep: sixteen or more digits (a dot among them or not), or an
 * exponent. Every other literal has at most fifteen significant digits and a magnitude
 * between 1e-15 and 1e15, which a double always gives back as written.
 */
const MAY_CHANGE = /\d[\d.]{15}|\d[eE]/;

// The tokens of a JSON text: a string (escapes included), a number, a punctuator, a literal.
const TOKEN =
  /"(?:[^"\\]|\\.)*"|(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?|[{}[\],:]|true|false|null/g;

type Container = { key: string | undefined; expectsKey: boolean } | { index: number };

/** Where a number stands: `values.ratio`, `[1]`, `a[0]`, as the JSON guard names paths. */
function pathOf(stack: readonly Container[]): string {
  let path = '';
  for (const container of stack) {
    path += 'index' in container ? `[${container.index}]` : `.${container.key ?? ''}`;
  }
  return path.replace(/^\./, '');
}

/**
 * The first number literal of a JSON text that JSON.parse does not keep as written, with
 * where it stands, that is, whose number String() (and so every answer) writes as another
 * decimal:
 * - a 64-bit id `12345678901234567890` reads as 12345678901234567000;
 * - `1.00000000000000000001` reads as 1, `3.14159265358979323846` as 3.141592653589793;
 * - `1e-400` reads as 0 and `2.5e-324` as 5e-324 (below what a double holds).
 * `1e20`, `2e300`, `1.50`, `0.1` and `-0` are kept. So is none of 2^60 written out,
 * `1152921504606846976`, which comes back as `1152921504606847000`. The path is read from the
 * text, not looked up by value: a `1` elsewhere in the body is not the `1.00000000000000000001`
 * that changed. Meant for a text already parsed as JSON; undefined without a scan when no
 * literal can have changed, which is most texts.
 */
export function firstInexactNumber(text: string): { path: string; value: number } | undefined {
  if (!MAY_CHANGE.test(text)) return undefined;
  const stack: Container[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const [token, sign, whole, fraction = '', exponent] = match;
    const top = stack[stack.length - 1];
    if (whole !== undefined) {
      if (exponent === undefined && whole.length + fraction.length <= 15) continue;
      const value = Number(token);
      // Beyond a double's range: the guard refuses Infinity on its own.
      if (!Number.isFinite(value)) continue;
      const readBack = WRITTEN_NUMBER.exec(String(value));
      if (!readBack) continue;
      const [, backSign, backWhole, backFraction = '', backExponent = '0'] = readBack;
      const written = decimal(sign, whole, fraction, exponent ?? '0');
      if (written !== decimal(backSign, backWhole, backFraction, backExponent))
        return { path: pathOf(stack), value };
      continue;
    }
    switch (token) {
      case '{':
        stack.push({ key: undefined, expectsKey: true });
        break;
      case '[':
        stack.push({ index: 0 });
        break;
      case '}':
      case ']':
        stack.pop();
        break;
      case ',':
        if (top && 'index' in top) top.index += 1;
        else if (top) top.expectsKey = true;
        break;
      case ':':
        if (top && !('index' in top)) top.expectsKey = false;
        break;
      default:
        if (token.startsWith('"') && top && !('index' in top) && top.expectsKey)
          top.key = JSON.parse(token) as string;
    }
  }
  return undefined;
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
