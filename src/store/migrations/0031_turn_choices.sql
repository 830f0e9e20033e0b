-- Questions with choices asked of a user (docs/messaging.md "Questions with choices"): a skill
-- answered `need_param` with `options`; the user's pick (a button or a numbered / text reply)
-- re-invokes the same call with the chosen value as that parameter. The button token is
-- stored only as its SHA-256; single use.
CREATE TABLE IF NOT EXISTS skillgate.turn_choices (
  token_hash text PRIMARY KEY,
  session_id text NOT NULL,
  -- the actor who was asked (contact key or <channel>:<id>)
  actor_key text NOT NULL,
  -- the tool name as invoked and its arguments
  tool text NOT NULL,
  args jsonb NOT NULL,
  -- the parameter the choice fills and the options [{value, label}]
  param text NOT NULL,
  options jsonb NOT NULL,
  -- 'call' (re-invoke the tool) or 'pending_reply' (the call answered a waiting reply: the
  -- choice is routed back through the pending replies)
  via text NOT NULL DEFAULT 'call',
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  resolved_at timestamptz,
  -- chosen | cancelled
  resolution text
);

CREATE INDEX IF NOT EXISTS turn_choices_session_idx
  ON skillgate.turn_choices (session_id, actor_key, created_at DESC);
