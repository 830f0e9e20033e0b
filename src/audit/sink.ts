/**
 * Group commit of audit rows (docs/audit.md "Group commit"): the hook hands each row to the
 * sink, which writes every row waiting in one statement — at the latest `intervalMs` after the
 * first one arrived, at once when `maxRows` wait, and at once when someone awaits
 * {@link AuditSink.durable}. The chat turn awaits `durable()` before it queues its reply, so
 * a crash never loses the row of a call whose answer went out; rows of calls nobody answers
 * for (schedules, chains run in the background) reach the table within `intervalMs`.
 */
import type { Logger } from '../log/logger.ts';
import type { AuditEntry } from './entry.ts';
import { auditRowsWrite, insertAuditRows, type AuditTarget } from './store.ts';
import type { SqlWrite } from '../store/sql-write.ts';

/** A group-committing writer of audit rows. */
export interface AuditSink {
  /** Queue one row; never throws. */
  add(entry: AuditEntry): void;
  /**
   * Resolves when every row added before this call is committed (or its write failed and
   * was logged: an audit failure never fails a call). Starts the write at once.
   */
  durable(): Promise<void>;
  /**
   * Take the rows of `sessionId` that wait, for the caller to commit with its own statement
   * (the chat turn's reply: src/outbox/store.ts `CompletesEvent.alongside`), after any write in
   * flight that holds rows of that session has finished. `giveBack` returns them to the sink
   * when that statement failed. Undefined when no row of the session waits.
   */
  take(sessionId: string): Promise<TakenRows | undefined>;
  /** Write what waits and stop; later rows are written one statement each. */
  close(): Promise<void>;
}

/** Rows taken out of the sink, as one write. */
export interface TakenRows {
  write: SqlWrite;
  /** Put the rows back (their carrying statement failed); they are written with the next batch. */
  giveBack(): void;
}

/** Options of {@link createAuditSink}. */
export interface AuditSinkOptions {
  log: Logger;
  /** Longest wait of a row before its write starts, ms (default 20). */
  intervalMs?: number;
  /** Rows per statement; a full batch is written at once (default 500). */
  maxRows?: number;
}

/** A sink over `db` (a Db's `copyFrom` writes a batch as one COPY: src/audit/store.ts). */
export function createAuditSink(db: AuditTarget, opts: AuditSinkOptions): AuditSink {
  const intervalMs = opts.intervalMs ?? 20;
  const maxRows = opts.maxRows ?? 500;
  const waiting: AuditEntry[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** The write in flight (its rows are no longer in `waiting`). */
  let inFlight: Promise<void> = Promise.resolve();
  /** The write queued behind the one in flight, not started yet. */
  let next: Promise<void> | undefined;
  let closed = false;
  /** Sessions with rows in the write in flight. */
  const writing = new Set<string>();

  const write = async (rows: AuditEntry[]): Promise<void> => {
    for (const r of rows) writing.add(r.sessionId);
    try {
      await insertAuditRows(db, rows);
    } catch (err) {
      opts.log.warn({ rows: rows.length, err: (err as Error)?.message }, 'audit log: calls could not be recorded');
    } finally {
      writing.clear();
    }
  };

  /** Start writing what waits, after the write in flight; resolves when it is done. */
  const flush = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (waiting.length === 0) return inFlight;
    // One write at a time; rows that arrive (and durable() calls made) meanwhile share the next.
    if (!next) {
      next = inFlight.then(async () => {
        next = undefined;
        while (waiting.length > 0) await write(waiting.splice(0, maxRows));
      });
      inFlight = next;
    }
    return next;
  };

  const add = (entry: AuditEntry): void => {
    if (closed) {
      void write([entry]);
      return;
    }
    waiting.push(entry);
    if (waiting.length >= maxRows) void flush();
    else if (!timer) {
      timer = setTimeout(() => void flush(), intervalMs);
      timer.unref?.();
    }
  };

  return {
    add,
    durable: () => flush(),
    async take(sessionId) {
      while (writing.has(sessionId)) await inFlight;
      const rows: AuditEntry[] = [];
      for (let i = 0; i < waiting.length; ) {
        if (waiting[i]!.sessionId === sessionId) rows.push(...waiting.splice(i, 1));
        else i++;
      }
      if (rows.length === 0) return undefined;
      return {
        write: auditRowsWrite(rows),
        giveBack: () => {
          for (const r of rows) add(r);
        },
      };
    },
    async close() {
      closed = true;
      await flush();
    },
  };
}
