-- The directory (src/identity/, docs/directory.md): departments, contacts, their platform ids
-- and teams, all keyed by the directory org — the role's org id, or the pseudo org
-- `r_<role_id>` when that is empty (R-ORG-02).

-- Org tree. `path` is the department's full path as imported (`/总部/销售中心/`, top first,
-- own last, canonical: trimmed segments, leading and trailing slash); the import keys on it.
-- parent_id is walked to build actor_department_path; a cyclic chain (dirty data) is cut at
-- 20 levels by the walk (R-DEPT-07). Disabled departments stay in paths (R-DEPT-06).
CREATE TABLE IF NOT EXISTS skillgate.departments (
  id bigserial PRIMARY KEY,
  org_id text NOT NULL,
  name text NOT NULL,
  parent_id bigint REFERENCES skillgate.departments (id) ON DELETE SET NULL,
  disabled boolean NOT NULL DEFAULT false,
  path text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, path)
);

CREATE INDEX IF NOT EXISTS departments_name_idx ON skillgate.departments (org_id, name);

CREATE TABLE IF NOT EXISTS skillgate.teams (
  org_id text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id)
);

-- One profile per contact key. `id` is the internal primary key (actor_id, R-CTX-08);
-- `department` the bare department text (actor_department), `department_id` its node in the
-- org tree when known (NULL: the path degrades to `/<department>/`, R-DEPT-05).
CREATE TABLE IF NOT EXISTS skillgate.contacts (
  id bigserial PRIMARY KEY,
  org_id text NOT NULL,
  contact_key text NOT NULL,
  name text NOT NULL DEFAULT '',
  emp_no text NOT NULL DEFAULT '',
  department_id bigint REFERENCES skillgate.departments (id) ON DELETE SET NULL,
  department text NOT NULL DEFAULT '',
  position text NOT NULL DEFAULT '',
  title text NOT NULL DEFAULT '',
  phone text NOT NULL DEFAULT '',
  email text NOT NULL DEFAULT '',
  tags text[] NOT NULL DEFAULT '{}',
  team_id text NOT NULL DEFAULT '',
  team_role text NOT NULL DEFAULT 'member' CHECK (team_role IN ('owner', 'admin', 'member')),
  -- may fill in for others on the web_admin channel (R-ADM)
  is_admin boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, contact_key)
);

-- Platform ids of a contact, one row per id (Feishu may carry open_id, union_id and user_id).
CREATE TABLE IF NOT EXISTS skillgate.contact_channel_ids (
  org_id text NOT NULL,
  channel text NOT NULL,
  platform_id text NOT NULL,
  contact_key text NOT NULL,
  PRIMARY KEY (org_id, channel, platform_id),
  FOREIGN KEY (org_id, contact_key) REFERENCES skillgate.contacts (org_id, contact_key)
    ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE INDEX IF NOT EXISTS contact_channel_ids_contact_idx
  ON skillgate.contact_channel_ids (org_id, contact_key, channel);
