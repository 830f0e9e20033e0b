/**
 * Output conventions of the `skillgate` command (README.md "The skillgate command"): stdout carries only the
 * command's result, logs go to stderr, exit codes are 0 success, 1 input refused, 2 could
 * not run.
 */

/** Exit code: success (for `skill run`/`chain run`: a result was produced, even a failed one). */
export const EXIT_OK = 0;
/** Exit code: the input was refused (preflight problems, bad arguments). */
export const EXIT_REFUSED = 1;
/** Exit code: the command itself could not run (no database, unreadable file). */
export const EXIT_FAILED = 2;

/** Thrown by a command to end with a message on stderr and the given exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Where a command writes; injectable so tests capture output without spawning. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The process's own streams. */
export const processIO: CliIO = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/** Print exactly one JSON document on stdout (README.md "The skillgate command"). */
export function printJson(io: CliIO, value: unknown): void {
  io.stdout(JSON.stringify(value, null, 2) + '\n');
}
