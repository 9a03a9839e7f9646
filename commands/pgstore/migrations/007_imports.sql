-- Imports: many mailboxes in one request. The rows are kept under the
-- request's ID (the signed request carries only their digest), each with
-- its state, so that an import cut off by a restart resumes on any
-- replica with no row run twice. No column holds a password.
CREATE TABLE imports (
    id              text PRIMARY KEY,
    requester       text NOT NULL,
    channel         text NOT NULL DEFAULT '',
    reason          text NOT NULL DEFAULT '',
    digest          text NOT NULL,
    created         timestamptz NOT NULL,
    state           text NOT NULL DEFAULT 'saved' CHECK (state IN ('saved', 'running', 'done')),
    runner          text NOT NULL DEFAULT '',
    renewed         timestamptz,
    done_at         timestamptz,
    progress_channel text NOT NULL DEFAULT '',
    progress_ts     text NOT NULL DEFAULT '',
    notice_channel  text NOT NULL DEFAULT '',
    notice_ts       text NOT NULL DEFAULT ''
);

-- The sweep reads only running imports, by their last renewal.
CREATE INDEX imports_running_renewed ON imports (renewed, id) WHERE state = 'running';

CREATE TABLE import_rows (
    import_id  text NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
    idx        integer NOT NULL,
    line       integer NOT NULL,
    domain     text NOT NULL,
    login      text NOT NULL,
    owner      text NOT NULL DEFAULT '',
    given      text NOT NULL DEFAULT '',
    family     text NOT NULL DEFAULT '',
    state      text NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'claimed', 'created', 'existing', 'failed')),
    runner     text NOT NULL DEFAULT '',
    taken_over boolean NOT NULL DEFAULT false,
    detail     text NOT NULL DEFAULT '',
    PRIMARY KEY (import_id, idx)
);
