-- How a web sign-in token came to be: 'issued' (`skillgate web token`, the console) or 'demo'
-- (the demo identity picker on loopback, docs/web-protocol.md "Authentication"). A demo token
-- never opens the console (docs/console.md).
ALTER TABLE skillgate.web_tokens ADD COLUMN IF NOT EXISTS source text NOT NULL DEFAULT 'issued';
