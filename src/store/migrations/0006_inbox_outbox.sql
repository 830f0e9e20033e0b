-- Durable inbound and outbound (inbox and outbox).
-- Every timestamp below comes from the application clock (injectable in tests), not now().

-- Every inbound event, stored before the platform is acknowledged. UNIQUE(channel, account,
-- dedupe_key) makes a redelivery a no-op, atomically, also across gateway processes.
CREATE TABLE IF NOT EXISTS skillgate.inbox_events (
  id bigserial PRIMARY KEY,
  channel text NOT NULL,
  account text NOT NULL,
  dedupe_key text NOT NULL,
  -- <channel>:<account>:<chat id>[:<thread id>]: the unit of ordering
  chat_key text NOT NULL,
  -- the InboundMessage (src/channel/types.ts) as received
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'received'
    CHECK (status IN ('received', 'processing', 'done', 'failed')),
  -- how many times a worker took the event (a crashed run counts)
  attempts integer NOT NULL DEFAULT 0,
  -- a 'received' event is not taken before this time (retry backoff)
  next_attempt_at timestamptz NOT NULL,
  lease_owner text,
  lease_until timestamptz,
  error text,
  received_at timestamptz NOT NULL,
  processed_at timestamptz,
  CONSTRAINT inbox_events_dedupe_key UNIQUE (channel, account, dedupe_key)
);

-- Unfinished events per chat in order: the head of each chat is the only one a worker takes.
CREATE INDEX IF NOT EXISTS inbox_events_unfinished_idx
  ON skillgate.inbox_events (chat_key, id) WHERE status IN ('received', 'processing');
CREATE INDEX IF NOT EXISTS inbox_events_due_idx
  ON skillgate.inbox_events (id) WHERE status IN ('received', 'processing');

-- Every outbound message, stored before it is sent; delivered with retries, per chat in order.
CREATE TABLE IF NOT EXISTS skillgate.outbox_messages (
  id bigserial PRIMARY KEY,
  -- a repeated enqueue with the same key returns the first row (NULL: no deduplication)
  idempotency_key text UNIQUE,
  channel text NOT NULL,
  account text NOT NULL,
  chat_key text NOT NULL,
  -- OutboundTarget and OutboundMessage (src/channel/types.ts)
  target jsonb NOT NULL,
  message jsonb NOT NULL,
  status text NOT NULL DEFAULT 'queued'
    CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
  -- send attempts started so far
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_owner text,
  lease_until timestamptz,
  -- the platform's own error text and code of the last failed attempt
  last_error text,
  error_code text,
  platform_message_ids jsonb,
  -- where the message came from, e.g. {"inbox_event_id": "12"}
  origin jsonb,
  created_at timestamptz NOT NULL,
  sent_at timestamptz
);

CREATE INDEX IF NOT EXISTS outbox_messages_unfinished_idx
  ON skillgate.outbox_messages (chat_key, id) WHERE status IN ('queued', 'sending');
CREATE INDEX IF NOT EXISTS outbox_messages_due_idx
  ON skillgate.outbox_messages (id) WHERE status IN ('queued', 'sending');
