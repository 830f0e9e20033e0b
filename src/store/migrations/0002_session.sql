-- Sessions, workspaces and attachment records with their reference ids
-- (R-PCTX-06, R-FILE-06, R-CTX-05/06, A-10).

CREATE TABLE IF NOT EXISTS skillgate.sessions (
  id text PRIMARY KEY,
  role_id text NOT NULL,
  org_id text NOT NULL DEFAULT '',
  channel text NOT NULL DEFAULT '',
  -- the actor's contact key, or `<channel>:<id>` when the actor is not in the directory
  owner_key text NOT NULL DEFAULT '',
  -- absolute path of the session workspace (R-PCTX-06)
  workspace_dir text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_active_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS sessions_owner_idx
  ON skillgate.sessions (owner_key, last_active_at DESC);

CREATE TABLE IF NOT EXISTS skillgate.attachments (
  -- unguessable: 128-bit random, base64url (served as GET /files/<id>)
  id text PRIMARY KEY,
  session_id text NOT NULL REFERENCES skillgate.sessions (id) ON DELETE CASCADE,
  -- reference id shown to the model: img_N | video_N | audio_N | file_N (A-10)
  ref text NOT NULL,
  type text NOT NULL CHECK (type IN ('image', 'video', 'audio', 'file')),
  -- N of the ref, numbered per session and kind
  seq integer NOT NULL CHECK (seq > 0),
  filename text NOT NULL,
  local_path text NOT NULL DEFAULT '',
  url text NOT NULL DEFAULT '',
  size_bytes bigint,
  mime text,
  origin text NOT NULL CHECK (origin IN ('upload', 'artifact', 'materialized')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT attachments_session_ref_key UNIQUE (session_id, ref),
  CONSTRAINT attachments_session_kind_seq_key UNIQUE (session_id, type, seq)
);

-- one record per file of a session (registration is idempotent on the local path)
CREATE UNIQUE INDEX IF NOT EXISTS attachments_session_path_key
  ON skillgate.attachments (session_id, local_path) WHERE local_path <> '';
