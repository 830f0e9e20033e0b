/**
 * The render worker's entry (adapters/telegram/reply-off-thread.ts starts it): each message is a
 * {@link ReplyJob} with an id; the answer carries the same id and the result or the error text.
 */
import { parentPort } from 'node:worker_threads';
import { runReplyJob, type ReplyJob } from './reply-job.ts';

parentPort?.on('message', (m: { id: number; job: ReplyJob }) => {
  try {
    parentPort!.postMessage({ id: m.id, result: runReplyJob(m.job) });
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
