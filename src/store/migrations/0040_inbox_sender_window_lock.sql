-- The sender's events in the flood window (docs/operations-delivery.md "Per-sender flood
-- control"), counted after taking the sender's transaction-scoped lock, as
-- skillgate.inbox_lock_head does per chat: the INSERTs of one sender's events that arrive at
-- the same moment count one after another, each seeing the ones committed before it (VOLATILE:
-- a fresh snapshot after the lock wait), so a burst never lets one more through than the limit.
CREATE OR REPLACE FUNCTION skillgate.inbox_sender_window(
  ch text, acc text, sender text, since timestamptz, OUT taken int, OUT refused int)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('skillgate.sender:' || ch || ':' || acc || ':' || sender, 0));
  SELECT count(*) FILTER (WHERE s.status <> 'refused')::int, count(*) FILTER (WHERE s.status = 'refused')::int
    INTO taken, refused
    FROM skillgate.inbox_events s
   WHERE s.channel = ch AND s.account = acc AND (s.payload->'actor'->>'id') = sender
     AND s.received_at > since AND s.payload->>'kind' = 'message';
END $$;
