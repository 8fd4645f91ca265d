/** The path of a request target, its query left off (`/a/b?x=1` → `/a/b`), with no array made. */
export function urlPath(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
