-- Custom migration: rate-limit counters are hot, short-lived and safe to lose on a crash (the next window starts
-- clean, and the spec fails open on counter-store problems), so they skip the write-ahead log.
ALTER TABLE "rate_limit_counters" SET UNLOGGED;
