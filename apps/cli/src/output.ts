/** Where commands write: data on stdout, messages and errors on stderr. */
export class Output {
  constructor(
    private readonly stdout: NodeJS.WritableStream,
    private readonly stderr: NodeJS.WritableStream,
    /** `--json`: print raw JSON results for scripts instead of text for people. */
    readonly json: boolean,
  ) {}

  /** A result: JSON with --json, else the text form. */
  result(value: unknown, text: () => string): void {
    this.stdout.write(this.json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
  }

  message(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  error(text: string): void {
    this.stderr.write(`error: ${text}\n`);
  }
}

/** Columns padded to their widest cell; `-` for empty cells. */
export function table(headers: string[], rows: Array<Array<string | undefined>>): string {
  const cells = [
    headers,
    ...rows.map((row) => row.map((cell) => (cell === undefined || cell === '' ? '-' : cell))),
  ];
  const widths = headers.map((_, column) =>
    Math.max(...cells.map((row) => (row[column] ?? '').length)),
  );
  return cells
    .map((row) =>
      row
        .map((cell, column) => (cell ?? '').padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
