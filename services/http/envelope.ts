/** The response envelope: `{success: true, data, pagination?}` or `{success: false, code, error}`. */
export interface Pagination {
  limit: number;
  has_more: boolean;
  next_cursor: string | null;
}

export const success = <T>(data: T) => ({ success: true as const, data });

export const page = <T>(data: T[], pagination: Pagination) => ({ success: true as const, data, pagination });

export const failure = (code: string, error: string, reason?: string) => ({
  success: false as const,
  code,
  error,
  ...(reason ? { reason } : {}),
});
