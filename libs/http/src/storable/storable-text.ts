import type { ProblemFieldError } from '../problem/problem-details';

/**
 * Deepest nesting of a request body. Deeper JSON overflows the stack of the validation
 * pipe's class-transformer walk (a 500), and no stored document needs it.
 */
export const MAX_JSON_DEPTH = 64;

// A UTF-16 surrogate without its partner: JSON can carry one as `\ud800`, UTF-8 cannot.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// Either half of a surrogate pair: most text has none, and skips the look for a lone one.
const SURROGATE = /[\ud800-\udfff]/;

function textProblem(text: string): string | undefined {
  // PostgreSQL text and jsonb cannot hold U+0000; the driver would answer with an error.
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (SURROGATE.test(text) && LONE_SURROGATE.test(text)) {
    return 'must be valid Unicode (it has a lone surrogate)';
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  // Fastify's params and query objects descend from a null-prototype object, not Object.
  const prototype = Object.getPrototypeOf(value) as object | null;
  return (
    prototype === Object.prototype ||
    prototype === null ||
    Object.getPrototypeOf(prototype) === null
  );
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/**
 * Whether {@link unstorableText} finds nothing in `value`, without building its answer: the
 * question every request asks, answered with no allocation (most input is storable).
 */
export function isStorable(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return textProblem(value) === undefined;
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value)) return true;
  if (depth >= MAX_JSON_DEPTH) return false;
  if (isArray) {
    for (const item of value) if (!isStorable(item, depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (textProblem(key) !== undefined || !isStorable(value[key], depth + 1)) return false;
  }
  return true;
}

/**
 * Every string (values and member names) of parsed JSON or request parameters that the
 * database cannot store, and any nesting deeper than `MAX_JSON_DEPTH`: checked before
 * anything else reads the input, so such input is a 400 rather than a 500.
 */
export function unstorableText(value: unknown, path = '', depth = 0): ProblemFieldError[] {
  if (typeof value === 'string') {
    const message = textProblem(value);
    return message ? [{ path, message }] : [];
  }
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value)) return [];
  if (depth >= MAX_JSON_DEPTH) {
    return [{ path, message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` }];
  }
  if (isArray) {
    return value.flatMap((item, index) => unstorableText(item, `${path}[${index}]`, depth + 1));
  }
  return Object.entries(value).flatMap(([key, item]) => {
    const keyMessage = textProblem(key);
    const keyErrors = keyMessage
      ? [{ path: path || key, message: `member names ${keyMessage}` }]
      : [];
    return [...keyErrors, ...unstorableText(item, join(path, key), depth + 1)];
  });
}

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * At most `maxLength` UTF-16 units of text from outside (a partner's answer, say) made
 * storable: NUL characters dropped, lone surrogates replaced with U+FFFD, and the cut never
 * made between the two halves of a pair. A record of what a partner said must not fail to be
 * written because of what the partner said.
 */
export function storableExcerpt(text: string, maxLength: number): string {
  let excerpt = text.slice(0, maxLength);
  if (excerpt.includes('\u0000')) excerpt = excerpt.replaceAll('\u0000', '');
  if (SURROGATE.test(excerpt)) {
    // A pair cut in two at the end is dropped rather than kept as half a character.
    if (/[\ud800-\udbff]$/.test(excerpt) && /^[\udc00-\udfff]/.test(text.slice(maxLength))) {
      excerpt = excerpt.slice(0, -1);
    }
    excerpt = excerpt.replace(LONE_SURROGATES, '\ufffd');
  }
  return excerpt;
}
