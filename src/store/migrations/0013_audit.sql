-- The audit log: one row per top-level skill invocation through runSkill
-- (chat, cli, chain, schedule, async lines), written by src/audit/hook.ts after the call.
-- Never a secret value: parameters are stored only as a keyed hash (HMAC-SHA256) computed
-- without secret parameters, plus the names of the schema-declared non-secret parameters
-- present; a confirm token only as its SHA-256 (the same digest as confirm_tokens.token_hash).
-- Rows older than SKILLGATE_AUDIT_RETENTION_DAYS (default 90) are purged (purgeAudit).
CREATE TABLE IF NOT EXISTS skillgate.audit_log (
  id bigserial PRIMARY KEY,
  -- when the call started (the application clock)
  at timestamptz NOT NULL,
  org_id text NOT NULL DEFAULT '',
  role_id text NOT NULL,
  channel text NOT NULL DEFAULT '',
  -- chat | cli | chain | schedule | async
  line text NOT NULL,
  session_id text NOT NULL DEFAULT '',
  actor_emp_no text NOT NULL DEFAULT '',
  actor_name text NOT NULL DEFAULT '',
  -- the registered skill name (or the name asked for when it did not resolve)
  skill text NOT NULL,
  -- sub-command (`skill__sub` or `subcommand`) or the input's `action`; '' when none
  action text NOT NULL DEFAULT '',
  -- hex HMAC-SHA256 of the canonical JSON of the non-secret parameters
  params_hash text NOT NULL,
  -- names of the schema-declared, non-secret top-level parameters present (never values)
  param_keys text[] NOT NULL DEFAULT '{}',
  success boolean NOT NULL,
  -- the envelope's error_type on failure ('exception' when the pipeline threw)
  error_type text,
  duration_ms integer NOT NULL,
  -- hex SHA-256 of the confirm token presented with this call; NULL when none
  confirm_token_hash text
);

CREATE INDEX IF NOT EXISTS audit_log_at_idx ON skillgate.audit_log (at DESC);
CREATE INDEX IF NOT EXISTS audit_log_role_idx ON skillgate.audit_log (role_id, at DESC);
CREATE INDEX IF NOT EXISTS audit_log_skill_idx ON skillgate.audit_log (skill, at DESC);
CREATE INDEX IF NOT EXISTS audit_log_actor_idx ON skillgate.audit_log (actor_emp_no, at DESC);
