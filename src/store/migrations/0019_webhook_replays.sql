-- Signed webhook requests whose signature does not cover the body (DingTalk signs only the
-- timestamp): each (timestamp, sign) pair is bound to the first body it came with, inside the
-- replay window; the same pair with another body is refused (a redelivery of the same body is
-- the inbox's duplicate). Stored here, not in memory, so every replica sees a pair another one
-- accepted. Only SHA-256 hashes are kept; rows are useless after expires_at (the window has
-- passed) and are purged.
-- Times come from the application clock.
CREATE TABLE IF NOT EXISTS skillgate.webhook_replays (
  channel text NOT NULL,
  account text NOT NULL,
  key_hash text NOT NULL,
  body_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (channel, account, key_hash)
);

CREATE INDEX IF NOT EXISTS webhook_replays_expires_idx ON skillgate.webhook_replays (expires_at);
