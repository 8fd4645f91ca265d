/**
 * A start-up failure the user can fix: its message is one line saying what went wrong and
 * what to do. `npm start` prints it alone (no stack trace) and exits with code 1.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}
