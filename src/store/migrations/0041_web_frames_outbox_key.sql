-- The outbox row a stored web frame delivers (`outbox:<id>`): a resend after an unknown outcome
-- (docs/operations-delivery.md "Unknown outcomes") finds the frames an earlier attempt stored
-- and does not store them twice. Null for frames the outbox did not send (echoes, acks).
ALTER TABLE skillgate.web_frames ADD COLUMN IF NOT EXISTS outbox_key text;
CREATE INDEX IF NOT EXISTS web_frames_outbox_key ON skillgate.web_frames (conversation_id, outbox_key) WHERE outbox_key IS NOT NULL;
