-- Sends whose outcome is unknown (docs/operations-delivery.md "Unknown outcomes"): the request
-- was written and no answer came back (a reset or timeout after write, a 5xx, a sender that
-- died mid-send), so the platform may have delivered the part.
--   ambiguity: NULL never; 'pending' the part `ambiguous_part` may or may not have reached the
--   platform and no later attempt got past it; 'resolved_by_key' a later attempt resent it
--   under the platform's idempotency key (delivered once); 'resent_with_marker' the platform
--   has no key and the resend carried the visible marker.
ALTER TABLE skillgate.outbox_messages ADD COLUMN IF NOT EXISTS ambiguity text;
ALTER TABLE skillgate.outbox_messages ADD COLUMN IF NOT EXISTS ambiguous_part integer;
ALTER TABLE skillgate.outbox_messages ADD COLUMN IF NOT EXISTS ambiguous_attempts integer NOT NULL DEFAULT 0;
