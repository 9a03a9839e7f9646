-- mailbot's state (docs/state.md) and its audit trail. No column holds a password, a
-- verification secret or a token: the Store interface carries none.

-- One row per request that needed approval: the operation, where the
-- request message is, and where the request is in its life.
CREATE TABLE requests (
    id              text PRIMARY KEY,
    requester       text NOT NULL,
    channel         text NOT NULL DEFAULT '',
    action          text NOT NULL,
    domain          text NOT NULL,
    login           text NOT NULL DEFAULT '',
    reason          text NOT NULL DEFAULT '',
    created         timestamptz NOT NULL,
    expires         timestamptz NOT NULL,
    state           text NOT NULL DEFAULT 'pending' CHECK (state IN
                        ('pending', 'running', 'done', 'failed', 'uncertain', 'denied', 'cancelled', 'expired')),
    approvers       text[] NOT NULL DEFAULT '{}',
    decided_by      text NOT NULL DEFAULT '',
    decided_at      timestamptz,
    outcome         text NOT NULL DEFAULT '',
    message_channel text NOT NULL DEFAULT '',
    message_ts      text NOT NULL DEFAULT '',
    reminded        boolean NOT NULL DEFAULT false,
    updated         timestamptz NOT NULL DEFAULT now()
);

-- The claims and the list of pending requests read only pending rows.
CREATE INDEX requests_pending_expires ON requests (expires, id) WHERE state = 'pending';
CREATE INDEX requests_pending_created ON requests (created, id) WHERE state = 'pending';
CREATE INDEX requests_pending_requester ON requests (requester, created, id) WHERE state = 'pending';

-- The audit trail: one row per operation run (written before the PDD API
-- call, completed after) and per decision.
CREATE TABLE audit (
    id         bigserial PRIMARY KEY,
    time       timestamptz NOT NULL,
    request_id text NOT NULL DEFAULT '',
    event      text NOT NULL,
    actor      text NOT NULL DEFAULT '',
    deciders   text[] NOT NULL DEFAULT '{}',
    action     text NOT NULL DEFAULT '',
    domain     text NOT NULL DEFAULT '',
    login      text NOT NULL DEFAULT '',
    reason     text NOT NULL DEFAULT '',
    outcome    text NOT NULL DEFAULT '',
    status     text NOT NULL DEFAULT '',
    stage      text NOT NULL DEFAULT '',
    uid        bigint NOT NULL DEFAULT 0,
    code       text NOT NULL DEFAULT ''
);

CREATE INDEX audit_time ON audit (time, id);
