-- Bulk export jobs (services/exports/, docs/EXPORTS.md). `plan` is the list of day partitions with
-- their row counts, fixed when the job is accepted; `files` the partitions written so far, so a job
-- interrupted by a restart resumes after its last whole file.
CREATE TABLE IF NOT EXISTS export_jobs
(
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL,
    dataset      TEXT NOT NULL,
    format       TEXT NOT NULL,
    filters      JSONB NOT NULL,
    status       TEXT NOT NULL,
    plan         JSONB NOT NULL,
    files        JSONB NOT NULL DEFAULT '[]',
    rows_total   BIGINT NOT NULL,
    bytes_written BIGINT NOT NULL DEFAULT 0,
    error        TEXT,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    finished_at  TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS export_jobs_account_idx ON export_jobs (account_id, id);
CREATE INDEX IF NOT EXISTS export_jobs_status_idx ON export_jobs (status);
-- The key that signs download links: one row, made by the first process that needs it, so every API
-- process sharing the control store signs and checks the same links.
CREATE TABLE IF NOT EXISTS export_signing_key
(
    singleton  BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    secret     TEXT NOT NULL
);
