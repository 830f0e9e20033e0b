-- Single-use web chat sign-in links (src/web-auth/signin-links.ts; docs/web-protocol.md
-- "Sign-in links"): asked for in a chat (`/web`, 「网页登录」) or issued in the console, bound to
-- one contact, short-lived. Only the sha256 of the link's code is stored; using it (POST
-- /api/web/signin {"link"}) sets used_at in the same statement that checks it, so it signs in
-- once. Times come from the application clock.
CREATE TABLE IF NOT EXISTS skillgate.web_signin_links (
  code_hash bytea PRIMARY KEY,
  org_id text NOT NULL,
  contact_key text NOT NULL,
  -- where it was asked for: 'chat:<channel>' or 'console'
  issued_via text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE INDEX IF NOT EXISTS web_signin_links_expires_idx ON skillgate.web_signin_links (expires_at);
