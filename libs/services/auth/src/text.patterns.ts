// Postgres refuses a NUL in text with an error of its own, so free text is checked up front.

/** Names and contact channels: one line, no control characters. */
// eslint-disable-next-line no-control-regex
export const SINGLE_LINE_TEXT = /^[^\u0000-\u001f\u007f]*$/;

/** Longer free text (a use case) may span lines, but holds no NUL. */
// eslint-disable-next-line no-control-regex
export const TEXT_WITHOUT_NUL = /^[^\u0000]*$/;
