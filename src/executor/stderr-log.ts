/**
 * A child's stderr as logs (R-SUB-04: stderr never becomes the result): split into lines,
 * secret values scrubbed, each line logged, the last lines kept for error messages.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from '../log/logger.ts';

/** Lines of stderr kept for error messages. */
export const STDERR_TAIL_LINES = 20;
/** A single logged line is cut at this many UTF-16 units. */
const MAX_LINE = 4000;

/** Collects a stream of stderr chunks. */
export interface StderrLog {
  /** Feed a chunk (Buffer or string). */
  write(chunk: Buffer | string): void;
  /** Flush a final partial line. */
  end(): void;
  /** The last {@link STDERR_TAIL_LINES} non-empty lines, scrubbed. */
  tail(): string[];
  /** The last non-empty line ("" when none). */
  lastLine(): string;
}

/**
 * Create a stderr collector logging each line at `debug` on `log` (field `stderr`).
 * @param scrub applied to every line before it is logged or kept (secret values removed).
 */
export function stderrLog(log: Logger, scrub: (s: string) => string): StderrLog {
  let partial = '';
  const decoder = new StringDecoder('utf8');
  const lines: string[] = [];
  const take = (raw: string): void => {
    const line = scrub(raw.replace(/\r$/, '')).slice(0, MAX_LINE);
    if (line.trim() === '') return;
    log.debug({ stderr: line }, 'skill stderr');
    lines.push(line);
    if (lines.length > STDERR_TAIL_LINES) lines.shift();
  };
  return {
    write(chunk) {
      partial += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let i: number;
      while ((i = partial.indexOf('\n')) >= 0) {
        take(partial.slice(0, i));
        partial = partial.slice(i + 1);
      }
      if (partial.length > 1_000_000) {
        take(partial);
        partial = '';
      }
    },
    end() {
      partial += decoder.end();
      if (partial) take(partial);
      partial = '';
    },
    tail: () => [...lines],
    lastLine: () => lines.at(-1)?.trim() ?? '',
  };
}
