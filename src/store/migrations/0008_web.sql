-- The web chat channel (adapters/web, docs/web-protocol.md; docs/adapter-authoring.md).

-- Sign-in tokens of the web chat: only the sha256 of a token is stored (the token is shown
-- once by `skillgate web token`); lookup by hash, so verification never compares secrets.
CREATE TABLE IF NOT EXISTS skillgate.web_tokens (
  token_hash bytea PRIMARY KEY,
  org_id text NOT NULL,
  contact_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz
);

CREATE INDEX IF NOT EXISTS web_tokens_contact_idx ON skillgate.web_tokens (org_id, contact_key);

-- One conversation per contact; last_seq is the seq of its newest stored frame.
CREATE TABLE IF NOT EXISTS skillgate.web_conversations (
  conversation_id text PRIMARY KEY,
  org_id text NOT NULL,
  contact_key text NOT NULL,
  last_seq bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Server frames that must survive reconnects (assistant.message, assistant.media,
-- confirm.request), replayed on hello.resume.last_server_seq.
CREATE TABLE IF NOT EXISTS skillgate.web_frames (
  conversation_id text NOT NULL,
  seq bigint NOT NULL CHECK (seq > 0),
  frame jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, seq)
);

-- Files uploaded through POST /api/uploads, before a message carries them.
CREATE TABLE IF NOT EXISTS skillgate.web_uploads (
  -- unguessable: 'up_' + 128-bit random, base64url
  id text PRIMARY KEY,
  org_id text NOT NULL,
  contact_key text NOT NULL,
  -- the original file name, Unicode kept exactly
  filename text NOT NULL,
  mime_type text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  sha256 text NOT NULL,
  -- the random file name under <data dir>/uploads/
  stored_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS web_uploads_contact_idx ON skillgate.web_uploads (org_id, contact_key, created_at DESC);
