-- Bearer tokens of the MCP endpoint /mcp (src/mcp/server/, docs/mcp.md): each binds one
-- directory contact and a role. Only the sha256 of a token is stored (shown once by
-- `skillgate mcp token` or the console), so verification is a lookup of the hash.
CREATE TABLE IF NOT EXISTS skillgate.mcp_tokens (
  token_hash bytea PRIMARY KEY,
  -- a public random id (mcpt_…), for listing and revoking; reveals nothing of the token
  token_id text NOT NULL UNIQUE,
  org_id text NOT NULL,
  role_id text NOT NULL,
  contact_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);

CREATE INDEX IF NOT EXISTS mcp_tokens_contact_idx ON skillgate.mcp_tokens (org_id, contact_key);
