-- Per-role skill enablement set in the operators' console (docs/configuration.md
-- "the console can change it per role"). A row overrides the role's config `skills:` list for
-- one skill: enabled=false hides a skill the list gives, enabled=true adds one it omits.
-- Read by src/lifecycle/enablement.ts (cached in memory, refreshed on change and periodically).
CREATE TABLE IF NOT EXISTS skillgate.role_skill_settings (
  role_id text NOT NULL,
  skill text NOT NULL,
  enabled boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (role_id, skill)
);
