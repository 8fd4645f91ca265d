/** Public path of the code of one version, where the ordering frontend imports it from. */
export function codeUrl(name: string, version: string): string {
  return `/frontend/plugins/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}/code`;
}

export function manifestUrl(name: string, version: string): string {
  return `/frontend/plugins/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}/manifest`;
}
