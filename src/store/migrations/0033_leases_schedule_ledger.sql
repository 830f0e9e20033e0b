-- One owner per long connection (docs/operations-delivery.md "One owner per long connection"):
-- a transport that must have a single consumer (Telegram long polling, the Feishu long
-- connection, the Discord gateway) runs on the replica holding its lease. `generation` is the
-- fencing token: it grows by one with every new holder, and a holder's late work is refused
-- once the row names another generation or has expired.
CREATE TABLE IF NOT EXISTS skillgate.channel_leases (
  key text PRIMARY KEY,
  holder text NOT NULL,
  generation bigint NOT NULL,
  acquired_at timestamptz NOT NULL,
  renewed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Schedules with a missed-run contract (docs/schedules.md): what happens to occurrences whose
-- planned time passed while no gateway ran, and how far the ledger has planned.
ALTER TABLE skillgate.schedules ADD COLUMN IF NOT EXISTS missed text NOT NULL DEFAULT 'once';
ALTER TABLE skillgate.schedules ADD COLUMN IF NOT EXISTS planned_through timestamptz;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'schedules_missed_check') THEN
    ALTER TABLE skillgate.schedules ADD CONSTRAINT schedules_missed_check CHECK (missed IN ('skip', 'once', 'all'));
  END IF;
END $$;

-- The occurrence ledger: one row per (schedule, planned time), inserted by the one replica
-- that claims it, in the same transaction that advances `planned_through`.
CREATE TABLE IF NOT EXISTS skillgate.schedule_occurrences (
  schedule text NOT NULL,
  planned_at timestamptz NOT NULL,
  -- claimed (not started) | running | done | failed | missed
  status text NOT NULL CHECK (status IN ('claimed', 'running', 'done', 'failed', 'missed')),
  catch_up boolean NOT NULL DEFAULT false,
  claimed_by text,
  lease_until timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  error text,
  result jsonb,
  PRIMARY KEY (schedule, planned_at)
);
CREATE INDEX IF NOT EXISTS schedule_occurrences_open ON skillgate.schedule_occurrences (lease_until) WHERE status IN ('claimed', 'running');
