-- Poison events (docs/operations-delivery.md "Quarantined events"): an event whose turn failed
-- or outlived its lease too often stays 'failed' — set aside, shown in the console and the CLI,
-- where it can be retried or 'discarded' (kept for the record, never run). 'refused': an event
-- over its sender's per-minute limit (flood control), stored so a redelivery stays a duplicate,
-- never run.
ALTER TABLE skillgate.inbox_events DROP CONSTRAINT IF EXISTS inbox_events_status_check;
ALTER TABLE skillgate.inbox_events ADD CONSTRAINT inbox_events_status_check
  CHECK (status IN ('received', 'processing', 'done', 'failed', 'discarded', 'refused'));
-- The console's list of quarantined events, newest first.
CREATE INDEX IF NOT EXISTS inbox_events_failed_idx ON skillgate.inbox_events (id) WHERE status = 'failed';
