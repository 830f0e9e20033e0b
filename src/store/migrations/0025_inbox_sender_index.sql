-- Per-sender flood control (src/inbox/flood.ts) counts one sender's events of the last
-- minute: this index serves that count.
CREATE INDEX IF NOT EXISTS inbox_events_sender_idx
  ON skillgate.inbox_events (channel, account, ((payload->'actor'->>'id')), received_at);
