-- Hand-overs: a mailbox's credentials waiting for their owner's click on
-- "Show my password". No column holds a password: the password is set at
-- the click and exists only in the answer to it. The row is the
-- compare-and-set that shows a hand-over at most once on any replica.
CREATE TABLE handovers (
    id              text PRIMARY KEY,
    owner           text NOT NULL,
    requester       text NOT NULL,
    request_id      text NOT NULL DEFAULT '',
    action          text NOT NULL,
    domain          text NOT NULL,
    login           text NOT NULL,
    self_service    boolean NOT NULL DEFAULT false,
    created         timestamptz NOT NULL,
    expires         timestamptz NOT NULL,
    state           text NOT NULL DEFAULT 'offered' CHECK (state IN ('offered', 'showing', 'shown', 'expired')),
    claimed_at      timestamptz,
    done_at         timestamptz,
    message_channel text NOT NULL DEFAULT '',
    message_ts      text NOT NULL DEFAULT ''
);

-- The sweep reads only offered rows, by their expiry.
CREATE INDEX handovers_offered_expires ON handovers (expires, id) WHERE state = 'offered';

-- The last self-service reset of each person, for the rate limit.
CREATE TABLE self_service (
    user_id text PRIMARY KEY,
    last_at timestamptz NOT NULL
);

-- Whom the credentials of a request, and of an audited run, went to.
ALTER TABLE requests ADD COLUMN handed_to text NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN handed_to text NOT NULL DEFAULT '';
