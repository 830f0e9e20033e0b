-- At most one event per chat is being processed and at most one message per chat is being
-- sent, whatever process took it (docs/pipeline.md "Per-chat order without locks"). The
-- database enforces it, so an insert that takes the new row at once needs no chat lock: two
-- concurrent takers of one chat cannot both win; the loser stores its row as waiting.
-- Deferred: a statement that finishes one event and takes the chat's next is checked at its end.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'inbox_one_processing_per_chat') THEN
    ALTER TABLE skillgate.inbox_events
      ADD CONSTRAINT inbox_one_processing_per_chat EXCLUDE USING btree (chat_key WITH =)
      WHERE (status = 'processing') DEFERRABLE INITIALLY DEFERRED;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'outbox_one_sending_per_chat') THEN
    ALTER TABLE skillgate.outbox_messages
      ADD CONSTRAINT outbox_one_sending_per_chat EXCLUDE USING btree (chat_key WITH =)
      WHERE (status = 'sending') DEFERRABLE INITIALLY DEFERRED;
  END IF;
END $$;
