/**
 * Logging: pino to stderr (CONTRACTS.md §1), JSON lines, pretty when stderr is a TTY.
 * Values under secret-named keys (the substrings of R-CFG-05: key, token, secret, password,
 * credential, auth — case-insensitive, at any depth) are replaced by `[redacted]`.
 */
import { pino, type Logger, type DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import { isSecretName } from '../registry/secrets.ts';

export type { Logger } from 'pino';

/** The replacement text of a redacted value. */
export const REDACTED = '[redacted]';

/**
 * Copy `value` with every secret-named key's value replaced (depth-limited to 8; Errors keep
 * their message and stack, which never hold a key/value pair).
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = isSecretName(k) && v !== null && v !== undefined && v !== '' ? REDACTED : redactSecrets(v, depth + 1);
  }
  return out;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** pino level (default `LOG_LEVEL` or `info`). */
  level?: string;
  /** Where to write (default: stderr, pretty in a TTY). Tests pass a capturing stream. */
  destination?: DestinationStream;
  /** Force pretty output on/off (default: stderr is a TTY). */
  pretty?: boolean;
}

/**
 * Create the process logger.
 * @returns a pino Logger whose every log object passes through {@link redactSecrets}.
 */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? process.env.LOG_LEVEL ?? 'info';
  const usePretty = opts.pretty ?? (opts.destination === undefined && process.stderr.isTTY === true);
  const destination =
    opts.destination ??
    (usePretty
      ? pretty({ destination: 2, sync: true, colorize: true, ignore: 'pid,hostname' })
      : pino.destination({ dest: 2, sync: true }));
  return pino(
    {
      level,
      base: undefined,
      formatters: { log: (obj) => redactSecrets(obj) as Record<string, unknown> },
    },
    destination,
  );
}

let shared: Logger | undefined;

/** The process-wide logger (created on first use). */
export function log(): Logger {
  shared ??= createLogger();
  return shared;
}
