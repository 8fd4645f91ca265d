/** A mistake in how the CLI was called (missing setting, not logged in): said plainly, exit 1. */
export class CliError extends Error {
  override name = 'CliError';
}
