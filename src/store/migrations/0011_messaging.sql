-- Messaging items 1-3; docs/messaging.md: notify target aliases and pending replies.
-- Every timestamp below comes from the application clock (injectable in tests), not now().

-- Admin-configured notify targets (`skillgate notify target add ops <apprise-urls…|config-key[:tag]>`).
-- Exactly one of `urls` (stateless Apprise URLs) or `config_key` (a key stored on the Apprise
-- API server, optional `tag`) is set. Apprise URLs may embed credentials: never log them.
CREATE TABLE IF NOT EXISTS skillgate.notify_targets (
  name text PRIMARY KEY,
  urls jsonb,
  config_key text,
  tag text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT notify_targets_one_kind CHECK ((urls IS NULL) <> (config_key IS NULL))
);

-- "Wait for a reply from <channel>:<recipient> for skill S with state X until T" (A-24).
-- The next message from that recipient is routed to S with the state and the reply, before
-- any planning; consumed once (a conditional UPDATE), expired rows ignored.
CREATE TABLE IF NOT EXISTS skillgate.pending_replies (
  id bigserial PRIMARY KEY,
  org_id text NOT NULL,
  role_id text NOT NULL,
  channel text NOT NULL,
  -- NULL: a reply through any account of the channel matches
  account text,
  -- the platform id the reply must come from (web: the contact key)
  recipient text NOT NULL,
  -- the continuation skill and what it needs to go on (plain JSON)
  skill text NOT NULL,
  state jsonb NOT NULL,
  -- tells several pending records of one person apart (e.g. a ticket number in the reply)
  ref text,
  -- who registered it: the skill and session (for logs and audits)
  created_by_skill text NOT NULL DEFAULT '',
  session_id text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- set once: consumed (routed to the skill) or cancelled (「取消」)
  resolved_at timestamptz,
  resolution text CHECK (resolution IN ('consumed', 'cancelled')),
  -- the inbox event that consumed it (a redelivered event may take its own record again)
  resolved_by_event text
);

CREATE INDEX IF NOT EXISTS pending_replies_open_idx
  ON skillgate.pending_replies (channel, recipient, created_at DESC) WHERE resolved_at IS NULL;
