/**
 * Setup file of every test file (vitest.config.ts): a test fails when node-postgres warns that
 * one client got a query while it was still executing another ("Calling client.query() when
 * the client is already executing a query") — two flows sharing one pg client, which pg 9
 * turns into an error (src/store/pool-db.ts listenerOps).
 */
import { afterAll, afterEach } from 'vitest';

const OVERLAP = /already executing a query/;
const seen: string[] = [];
process.on('warning', (w) => {
  if (OVERLAP.test(w.message)) seen.push(w.stack ?? w.message);
});

function check(): void {
  if (seen.length === 0) return;
  const first = seen.splice(0)[0];
  throw new Error(`a pg client was given a query while it was executing another:\n${first}`);
}

// The warning is emitted on the next tick after the overlapping call: give it that tick.
afterEach(async () => {
  await new Promise((r) => setImmediate(r));
  check();
});
afterAll(async () => {
  await new Promise((r) => setImmediate(r));
  check();
});
