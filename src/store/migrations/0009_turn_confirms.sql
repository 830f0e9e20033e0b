-- Confirmation requests shown to a user (docs/messaging.md): which tool call a confirm token
-- belongs to, so the gateway itself re-invokes the same skill with the same parameters plus
-- the token when the user confirms (button or 「确认」). The token is stored only as its
-- SHA-256, like skillgate.confirm_tokens; the skill's own service decides validity.
CREATE TABLE IF NOT EXISTS skillgate.turn_confirms (
  token_hash text PRIMARY KEY,
  session_id text NOT NULL,
  -- the actor who was asked (contact key or <channel>:<id>)
  actor_key text NOT NULL,
  -- the tool name as invoked (`skill` or `skill__sub`) and its arguments without the token
  tool text NOT NULL,
  args jsonb NOT NULL,
  -- the token, AES-256-GCM encrypted with the secret key (a 「确认」 text reply carries no
  -- token, so the gateway needs it to re-invoke); cleared once resolved
  token_enc text,
  prompt text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  resolved_at timestamptz,
  -- confirmed | cancelled
  resolution text
);

CREATE INDEX IF NOT EXISTS turn_confirms_session_idx
  ON skillgate.turn_confirms (session_id, actor_key, created_at DESC);
