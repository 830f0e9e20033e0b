/**
 * Logging: pino to stderr (README.md "The skillgate command"), JSON lines, pretty when stderr is a TTY.
 * Redaction (src/log/secret-values.ts): values under the known secret field names
 * (`bot_token`, `app_secret`, `authorization`, …, exact names, any depth) are replaced by
 * `[redacted]`, and every written line is scrubbed of the configured secret values themselves
 * (also URL-encoded or JSON-escaped). No name pattern: `chat_key` logs as itself.
 */
import { Writable } from 'node:stream';
import { pino, type Logger, type DestinationStream } from 'pino';
import { createRequire } from 'node:module';
import type prettyFactory from 'pino-pretty';
import { isKnownSecretField, processSecrets, REDACTED, type SecretValues } from './secret-values.ts';

export type { Logger } from 'pino';

export { REDACTED } from './secret-values.ts';

/**
 * Copy `value` with every known secret field's value replaced (depth-limited to 8; Errors are
 * kept — their text is scrubbed by value on the written line).
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = isKnownSecretField(k) && v !== null && v !== undefined && v !== '' ? REDACTED : redactSecrets(v, depth + 1);
  }
  return out;
}

/** A stream that scrubs each written chunk of `secrets` before passing it to `to` (same call, so sync stays sync). */
function scrubbing(to: DestinationStream, secrets: SecretValues): DestinationStream {
  return new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      try {
        to.write(secrets.size === 0 ? text : secrets.scrub(text));
        cb();
      } catch (err) {
        cb(err as Error);
      }
    },
  });
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** pino level (default `LOG_LEVEL` or `info`). */
  level?: string;
  /** Where to write (default: stderr, pretty in a TTY). Tests pass a capturing stream. */
  destination?: DestinationStream;
  /** Force pretty output on/off (default: stderr is a TTY). */
  pretty?: boolean;
  /** Secret values scrubbed from every line (default: {@link processSecrets}). */
  secrets?: SecretValues;
}

/**
 * Create the process logger.
 * @returns a pino Logger whose every log object passes through {@link redactSecrets} and whose
 *   every line is scrubbed of the secret values.
 */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? process.env.LOG_LEVEL ?? 'info';
  const usePretty = opts.pretty ?? (opts.destination === undefined && process.stderr.isTTY === true);
  const destination =
    opts.destination ??
    (usePretty
      ? // pino-pretty only for a terminal: required here, not loaded by every start
        (createRequire(import.meta.url)('pino-pretty') as typeof prettyFactory)({
          destination: 2,
          sync: true,
          colorize: true,
          ignore: 'pid,hostname',
        })
      : pino.destination({ dest: 2, sync: true }));
  return pino(
    {
      level,
      base: undefined,
      formatters: { log: (obj) => redactSecrets(obj) as Record<string, unknown> },
    },
    scrubbing(destination, opts.secrets ?? processSecrets()),
  );
}

let shared: Logger | undefined;

/** The process-wide logger (created on first use). */
export function log(): Logger {
  shared ??= createLogger();
  return shared;
}
