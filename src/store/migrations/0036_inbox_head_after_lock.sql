-- Whether a new event of `chat` would be its chat's head, decided after taking the chat's
-- transaction-scoped lock (docs/pipeline.md "Per-chat order without locks"). VOLATILE: its
-- query takes a fresh snapshot after the lock wait, so it sees the event whose commit released
-- the lock, although the calling INSERT's own snapshot is older. One statement then stores an
-- event in its chat's commit order and takes it when the chat is free.
CREATE OR REPLACE FUNCTION skillgate.inbox_lock_head(chat text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('skillgate.inbox:' || chat, 0));
  RETURN NOT EXISTS (
    SELECT 1 FROM skillgate.inbox_events p
     WHERE p.chat_key = chat AND p.status IN ('received', 'processing'));
END $$;
