/**
 * A data-modifying statement that another statement carries as a CTE, so both commit in one
 * round trip (docs/pipeline.md "One commit for the reply and the done mark").
 */

/** An INSERT/UPDATE/DELETE whose parameters the carrying statement numbers. */
export interface SqlWrite {
  /** The statement's text, with `param(i)` (i = 1…params.length) for each placeholder. */
  sql(param: (i: number) => string): string;
  /** Its parameter values, in placeholder order. */
  params: readonly unknown[];
  /**
   * Merge writes that carry this same function into one (the replies of several turns in one
   * statement, src/outbox/final-batch.ts). Absent: the write is carried only on its own.
   */
  merge?: (writes: readonly SqlWrite[]) => SqlWrite;
}

/** Numbering of a standalone statement ($1…). */
export const ownParams = (i: number): string => `$${i}`;
