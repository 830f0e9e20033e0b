-- The one confirmation service (docs/messaging.md; R-DT-87/88, A-29).
-- A token is stored only as its SHA-256 (a database read never yields a live token) and is
-- bound to org, role, session, the actor asked, skill, action, table and a hash of the
-- call's parameters without the token. Single use: `consumed_at` is set atomically.
-- Expiry times come from the application clock (injectable in tests), not now().
CREATE TABLE IF NOT EXISTS skillgate.confirm_tokens (
  token_hash text PRIMARY KEY,
  org_id text NOT NULL,
  role_id text NOT NULL,
  session_id text NOT NULL,
  actor_key text NOT NULL DEFAULT '',
  skill text NOT NULL,
  action text NOT NULL,
  -- the table the call touches (a datatable table id; '' when none)
  table_ref text NOT NULL DEFAULT '',
  -- hex SHA-256 of the canonical JSON of the parameters without the token
  params_hash text NOT NULL,
  -- the original call, for a gateway that re-invokes the skill itself on confirmation
  call jsonb,
  -- what the user is asked to confirm (e.g. the number of rows), shown by the confirm UI
  summary text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz
);

CREATE INDEX IF NOT EXISTS confirm_tokens_expires_idx ON skillgate.confirm_tokens (expires_at);
CREATE INDEX IF NOT EXISTS confirm_tokens_session_idx ON skillgate.confirm_tokens (session_id, created_at DESC);
