-- Flood control shared by every replica (src/outbox/pacing.ts, docs/operations-delivery.md):
-- one row per paced chat (scope 'chat', key = the outbox chat_key) with its GCRA schedule,
-- and one per bot account that the platform answered 429 (scope 'account', key
-- '<channel>:<account>') with the pause and the rate it was set to. The outbox takes no
-- message of a chat or account before its not_before.
CREATE TABLE IF NOT EXISTS skillgate.delivery_pace (
  scope text NOT NULL CHECK (scope IN ('chat', 'account')),
  key text NOT NULL,
  tat timestamptz NOT NULL,
  not_before timestamptz NOT NULL,
  rate_per_s double precision,
  rate_since timestamptz,
  PRIMARY KEY (scope, key)
);
