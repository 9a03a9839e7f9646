-- An operation's second address: the mailbox an alias delivers to
-- (alias add), the successor that receives a mailbox's aliases
-- (offboard). Empty for every other operation.
ALTER TABLE requests ADD COLUMN to_address text NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN to_address text NOT NULL DEFAULT '';
