/** Names whose values never reach a log line, wherever they appear (body, header, query). */
const SECRET_NAME = /secret|password|passwd|token|authorization|api[-_]?key|signature/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** `/x?client_secret=abc&a=1` → `/x?client_secret=[redacted]&a=1`: query values of secret names. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: judge the name as sent.
      }
      return eq >= 0 && isSecretName(name) ? `${rawName}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, start)}?${query}`;
}

/** A copy of a parsed query (or any flat record) with the values of secret names replaced. */
export function redactRecord(record: unknown): unknown {
  if (!record || typeof record !== 'object') return record;
  return Object.fromEntries(
    Object.entries(record as Record<string, unknown>).map(([name, value]) => [
      name,
      isSecretName(name) ? '[redacted]' : value,
    ]),
  );
}
