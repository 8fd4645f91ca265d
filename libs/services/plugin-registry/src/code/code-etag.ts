/** A strong validator for the code of one version: changes exactly when its bytes change. */
export function codeEtag(sha256Hex: string): string {
  return `"sha256-${sha256Hex}"`;
}

/**
 * True when an `If-None-Match` header matches the ETag (RFC 9110 13.1.2: weak comparison,
 * a list of tags, or `*` for any current representation).
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.replace(/^W\//, '');
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag.replace(/^W\//, '') === opaque);
}
