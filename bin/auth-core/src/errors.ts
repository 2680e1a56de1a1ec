/** Exit statuses of the command (docs/migrating.md "Exit statuses"). */
export const EXIT = {
  /** Every user imported (dry run: would be). */
  ok: 0,
  /** Some users not imported: see the report. */
  someNotImported: 1,
  /** Bad usage, unreadable or unrecognised input, a source setting missing or conflicting. */
  usage: 2,
  /** The core unreachable, the API key refused, the app missing, or a feature the core lacks. */
  core: 3,
} as const;

/** An error that ends the command with a given exit status and a message for the user. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);
export const coreError = (message: string) => new CliError(message, EXIT.core);
