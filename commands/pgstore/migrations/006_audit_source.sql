-- Where each audit entry came from: 'slack' (mailbot serve) or 'shell'
-- (mailbot shell). Entries written before this column existed say ''.
ALTER TABLE audit ADD COLUMN source text NOT NULL DEFAULT '';
