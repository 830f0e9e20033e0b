-- Crash recovery (docs/recovery.md).
-- The skill call a turn started and had not finished: set just before a skill that does not
-- declare `idempotent: true` runs, so a run taken over after a crash asks the person
-- instead of calling the skill again.
ALTER TABLE skillgate.inbox_events ADD COLUMN IF NOT EXISTS started_call jsonb;

-- A remembered request is a confirmation (`confirm`: re-invoked with its token) or the
-- offer to run again a call a restart interrupted (`retry`: re-invoked as it was).
ALTER TABLE skillgate.turn_confirms ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'confirm';

-- Gateway processes on a server, with their heartbeats: the leases of one whose heartbeat
-- stopped are taken over by the others.
CREATE TABLE IF NOT EXISTS skillgate.instances (
  id text PRIMARY KEY,
  -- host name, boot id and pid namespace (Linux): a process of the same host_key whose pid no
  -- longer runs is known dead without waiting for its heartbeat to age; NULL: unknown
  host_key text,
  pid integer,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
