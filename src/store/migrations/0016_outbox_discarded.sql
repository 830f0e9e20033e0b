-- The operators' console can discard a failed outbound message: the row is kept
-- (who got what, and the platform's last error) with status 'discarded', never sent again.
ALTER TABLE skillgate.outbox_messages DROP CONSTRAINT IF EXISTS outbox_messages_status_check;
ALTER TABLE skillgate.outbox_messages ADD CONSTRAINT outbox_messages_status_check
  CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'discarded'));
