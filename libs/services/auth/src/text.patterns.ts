// Postgres refuses a NUL in text with an error of its own, so free text is checked up front.

/**
 * Names and contact channels: one line with something visible on it. No control characters,
 * no line or paragraph separator (U+2028, U+2029), and no bidirectional embedding, override or
 * isolate (U+202A–U+202E, U+2066–U+2069), which would show a name in the admin's listings
 * other than it is written.
 */
export const SINGLE_LINE_TEXT =
  // eslint-disable-next-line no-control-regex
  /^(?=[\s\S]*\S)[^\u0000-\u001f\u007f\u2028\u2029\u202a-\u202e\u2066-\u2069]*$/;

/** What a field refused by {@link SINGLE_LINE_TEXT} is told. */
export function singleLineMessage(field: string): string {
  return `${field} must be one line with visible text, without control, line-separator or text-direction characters`;
}

/** Longer free text (a use case) may span lines, but holds no NUL. */
// eslint-disable-next-line no-control-regex
export const TEXT_WITHOUT_NUL = /^[^\u0000]*$/;
