-- Rate-limit counters of the identity endpoints (PRODUCT.md §1): one fixed-window count per key (a SHA-256
-- digest of action and subject, never the address itself) and window start (milliseconds since the epoch).
CREATE TABLE rate_limit_counters (
    key TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (key, window_start)
);

CREATE INDEX rate_limit_counters_window_start ON rate_limit_counters (window_start);
