-- Foundation: instance metadata. Later migrations add the tables of each module.
CREATE TABLE IF NOT EXISTS skillgate.meta (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO skillgate.meta (key, value)
VALUES ('instance_id', md5(random()::text || clock_timestamp()::text))
ON CONFLICT (key) DO NOTHING;
