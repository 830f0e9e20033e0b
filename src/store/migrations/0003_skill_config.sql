-- Skill parameters and secrets per role (R-CFG-01, R-CFG-05).
-- `value` holds the plain text, or for `encrypted` rows `v1:<iv>:<tag>:<ciphertext>`
-- (AES-256-GCM, src/runtime/crypto.ts). Names are stored normalised (R-CFG-03).
CREATE TABLE IF NOT EXISTS skillgate.skill_config (
  role_id text NOT NULL,
  skill text NOT NULL,
  key text NOT NULL,
  value text NOT NULL,
  encrypted boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (role_id, skill, key)
);
