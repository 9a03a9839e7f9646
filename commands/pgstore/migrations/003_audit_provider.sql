-- Which provider each audited operation went to (pdd, yandex360, mailcow):
-- one database may see a change of MAILBOT_PROVIDER. Entries written
-- before this column existed went to PDD, the only provider then.
ALTER TABLE audit ADD COLUMN provider text NOT NULL DEFAULT '';
UPDATE audit SET provider = 'pdd' WHERE event = 'run';
