-- A message delivered as several platform messages (chunks, media, a button card) records how
-- many of its parts went out before a failed attempt, so the retry resumes there and the user
-- never gets a part twice (src/channel/parts.ts). platform_message_ids then holds the ids of
-- the parts delivered so far, across attempts.
ALTER TABLE skillgate.outbox_messages ADD COLUMN IF NOT EXISTS parts_done integer NOT NULL DEFAULT 0;
