-- Indexes that keep the periodic queries off a years-long history.

-- ClaimStale reads the running requests by the start of their run; without
-- this index it read every row of requests at every sweep.
CREATE INDEX requests_running_decided ON requests (decided_at, id) WHERE state = 'running';

-- The retention reads the decided requests by the end of their decision.
CREATE INDEX requests_final_decided ON requests (decided_at)
    WHERE state NOT IN ('pending', 'running');
