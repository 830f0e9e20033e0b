-- Long button payloads: platforms cap a button's payload (Telegram callback_data is
-- 1-64 bytes), so a payload that does not fit is replaced by a short random reference and
-- stored here until it expires. Only the SHA-256 of the reference is stored and the payload is
-- AES-256-GCM encrypted with a key derived from the reference itself, so a database read alone
-- never yields a live confirm token (like skillgate.confirm_tokens). Times come from the
-- application clock.
CREATE TABLE IF NOT EXISTS skillgate.callback_payloads (
  ref_hash text PRIMARY KEY,
  channel text NOT NULL,
  account text NOT NULL,
  -- iv (12 bytes) || tag (16 bytes) || ciphertext
  payload_enc bytea NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS callback_payloads_expires_idx ON skillgate.callback_payloads (expires_at);
