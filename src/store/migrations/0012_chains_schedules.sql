-- Saved chains (docs/chains.md): one row per chain name; the document is
-- the chain document as saved (validated by src/chain/validate.ts before it gets here).
CREATE TABLE IF NOT EXISTS skillgate.chains (
  name text PRIMARY KEY,
  document jsonb NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Schedules: a skill or chain on a cron expression, its result delivered to a
-- target (a notify alias / Apprise URL, or a send_message recipient). pg-boss (schema pgboss)
-- holds the cron entry and the jobs; this table is what the admin manages.
CREATE TABLE IF NOT EXISTS skillgate.schedules (
  name text PRIMARY KEY,
  cron text NOT NULL,
  timezone text NOT NULL DEFAULT 'UTC',
  -- skill | chain
  kind text NOT NULL,
  target text NOT NULL,
  input jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- notify:<alias|apprise-url> | <channel>[@<account>]:<id> (send_message) | '' (no delivery)
  deliver_to text NOT NULL DEFAULT '',
  role_id text NOT NULL DEFAULT 'default',
  created_at timestamptz NOT NULL DEFAULT now(),
  last_run_at timestamptz,
  last_ok boolean,
  last_result jsonb
);
