-- A hand-over is voided by a later hand-over, reset, block or offboarding
-- of its mailbox: its state becomes 'voided', and voided_by names the
-- action that voided it. The index finds a mailbox's open hand-overs.
ALTER TABLE handovers DROP CONSTRAINT handovers_state_check;
ALTER TABLE handovers ADD CONSTRAINT handovers_state_check
    CHECK (state IN ('offered', 'showing', 'shown', 'expired', 'voided'));
ALTER TABLE handovers ADD COLUMN voided_by text NOT NULL DEFAULT '';
CREATE INDEX handovers_open_mailbox ON handovers (domain, login) WHERE state IN ('offered', 'showing');

-- A provider's ID is text, kept whole (Google's have 21 digits). Rows
-- written before keep their number as its digits; 0 (no ID) becomes ''.
ALTER TABLE audit ALTER COLUMN uid DROP DEFAULT;
ALTER TABLE audit ALTER COLUMN uid TYPE text USING CASE WHEN uid = 0 THEN '' ELSE uid::text END;
ALTER TABLE audit ALTER COLUMN uid SET DEFAULT '';
