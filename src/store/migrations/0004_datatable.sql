-- Datatable metadata (R-DT-06..R-DT-22).
-- The business tables themselves live in one schema per organisation, org_data_<org>; their
-- business semantics (logical type, required, unique, options, precision) live here and are
-- never inferred from information_schema (R-DT-09). Foreign keys are used only inside these
-- platform tables, never in the organisations' data tables (R-DT-11).

-- One logical table: a real table "<title>" in schema <schema_name>.
CREATE TABLE IF NOT EXISTS skillgate.dt_tables (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id text NOT NULL,
  schema_name text NOT NULL,
  title text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, title)
);
CREATE INDEX IF NOT EXISTS dt_tables_schema_idx ON skillgate.dt_tables (schema_name);

-- One business field (a column named by its title). uidt is the Chinese logical type name
-- (A-33); options a JSON array of strings (单选 / 多选); precision/scale for 数字 only.
CREATE TABLE IF NOT EXISTS skillgate.dt_fields (
  table_id uuid NOT NULL REFERENCES skillgate.dt_tables (id) ON DELETE CASCADE,
  title text NOT NULL,
  uidt text NOT NULL,
  required boolean NOT NULL DEFAULT false,
  "unique" boolean NOT NULL DEFAULT false,
  options jsonb NOT NULL DEFAULT '[]'::jsonb,
  precision integer,
  scale integer,
  position integer NOT NULL DEFAULT 0,
  PRIMARY KEY (table_id, title)
);

-- Table grants: exceptions, not a whitelist (R-DT-13). No row for a table = open to every
-- role; a role without a row on a table that has rows = open for that role (A-26).
-- actions NULL = every action; row_scope 'own' needs owner_field (R-DT-16..22).
CREATE TABLE IF NOT EXISTS skillgate.dt_grants (
  table_id uuid NOT NULL REFERENCES skillgate.dt_tables (id) ON DELETE CASCADE,
  role_id text NOT NULL,
  actions text[],
  row_scope text NOT NULL DEFAULT 'all' CHECK (row_scope IN ('all', 'own')),
  owner_field text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (table_id, role_id),
  CHECK (row_scope <> 'own' OR owner_field IS NOT NULL)
);
