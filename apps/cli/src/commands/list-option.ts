/** Commander parser for `--tenant-ids a,b` and repeated `--tenant-ids a --tenant-ids b`. */
export function commaList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  ];
}

export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`expected a whole number of seconds, got "${value}"`);
  return parsed;
}
