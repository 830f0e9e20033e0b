/**
 * The owner name of a worker that leases rows: the inbox writes it as `lease_owner` of the
 * events it takes, the outbox as the owner of the messages it claims (docs/operations-delivery.md).
 * Shared by both, so it sits below them.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** `<host>:<pid>:<8 hex chars>`, different on each call (one per inbox/outbox instance). */
export function defaultInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}
