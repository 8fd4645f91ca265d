/**
 * Whether the fields of a written date-time name a real instant. `Date` rolls impossible
 * fields over (February 30 becomes March 2, 24:00 the next day), which would move a page
 * cursor silently; every field must come back as written.
 */
export function namesRealInstant(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): boolean {
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC reads years 0–99 as 1900–1999.
  date.setUTCFullYear(year);
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}
