import { ProblemError } from '../problem/problem.error';

/**
 * The refusal of a request body sent with a content coding (`Content-Encoding: gzip`, `br`,
 * …), or undefined when it has none (`identity`, or no header). No route decodes one, so the
 * body's bytes are not the JSON or text its Content-Type names: they are refused with 415 and
 * `Accept-Encoding: identity` (RFC 9110 §8.4, §12.5.3), rather than read as if they were
 * plain (a plain body mislabelled `gzip` was taken, a compressed one refused as malformed).
 */
export function contentCodingRefusal(
  header: string | string[] | undefined,
): ProblemError | undefined {
  if (header === undefined) return undefined;
  const codings = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return undefined;
  return new ProblemError({
    status: 415,
    code: 'request.unsupported_media_type',
    title: 'Unsupported content coding',
    detail: `Request bodies are taken without a content coding, not ${codings.join(', ')}: send the body as it is, without Content-Encoding.`,
    headers: { 'accept-encoding': 'identity' },
  });
}
