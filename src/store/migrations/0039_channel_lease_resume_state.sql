-- What a long connection needs to pick up where it left off after a restart or a takeover
-- (docs/operations-delivery.md "Resuming a long connection"): the Discord gateway's session
-- (session id, last sequence, resume URL). Kept on the lease row of the transport, so only the
-- current holder writes it (the write names holder and generation) and the next holder reads it.
ALTER TABLE skillgate.channel_leases ADD COLUMN IF NOT EXISTS resume_state jsonb;
