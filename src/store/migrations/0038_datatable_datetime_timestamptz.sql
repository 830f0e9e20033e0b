-- 日期时间 fields become timestamptz (docs/datatable.md "Field types", docs/results.md "Times"):
-- a column created as timestamp (without time zone) held wall-clock times as written, meant in
-- the organisation's zone; each is converted to the instant that wall-clock time names there.
-- The zone is the one migrate() sets for the run (skillgate.org_time_zone: SKILLGATE_TIMEZONE,
-- else the host's), UTC when none is set.
DO $$
DECLARE
  r record;
  tz text := coalesce(nullif(current_setting('skillgate.org_time_zone', true), ''), 'UTC');
BEGIN
  FOR r IN
    SELECT t.schema_name, t.title AS table_name, f.title AS column_name
      FROM skillgate.dt_fields f
      JOIN skillgate.dt_tables t ON t.id = f.table_id
      JOIN information_schema.columns c
        ON c.table_schema = t.schema_name AND c.table_name = t.title AND c.column_name = f.title
     WHERE f.uidt = '日期时间' AND c.data_type = 'timestamp without time zone'
  LOOP
    EXECUTE format(
      'ALTER TABLE %I.%I ALTER COLUMN %I TYPE timestamptz USING %I AT TIME ZONE %L',
      r.schema_name, r.table_name, r.column_name, r.column_name, tz
    );
  END LOOP;
END
$$;
