/**
 * Limits every analytics statement runs under, as ClickHouse settings. A statement made for an API
 * request (one runs inside a request context) gets the request limits, so no request can make the
 * engine scan, hold or return without bound; the pipeline's own work (sink inserts, jobs, signals)
 * gets the internal ones. A caller may override single values per call.
 * Every statement sends every setting: chDB keeps SET values in its one session, so a value left out
 * would be whatever the previous statement used.
 */
export interface QueryLimits {
  /** max_execution_time (0: none). */
  maxExecutionMs: number;
  /** max_rows_to_read (0: none). */
  maxRowsToRead: number;
  /** max_memory_usage in bytes (0: the engine's own bound). */
  maxMemoryBytes: number;
  /** max_result_rows (0: none). */
  maxResultRows: number;
}

/** The pipeline's work is bounded by its batch sizes, not by these. */
export const INTERNAL_LIMITS: QueryLimits = { maxExecutionMs: 0, maxRowsToRead: 0, maxMemoryBytes: 0, maxResultRows: 0 };

export function limitSettings(limits: QueryLimits): Record<string, number | string> {
  return {
    max_execution_time: limits.maxExecutionMs / 1000,
    timeout_overflow_mode: 'throw',
    max_rows_to_read: limits.maxRowsToRead,
    read_overflow_mode: 'throw',
    max_memory_usage: limits.maxMemoryBytes,
    max_result_rows: limits.maxResultRows,
    result_overflow_mode: 'throw',
  };
}
