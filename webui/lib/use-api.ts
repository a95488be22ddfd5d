/** Loading data from /v1 in a component: the value, the failure, and a reload; stale answers are dropped. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from './api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiFailure | null;
  loading: boolean;
  reload: () => Promise<void>;
}

export function useApi<T>(load: (() => Promise<T>) | null, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(load !== null);
  const generation = useRef(0);

  const reload = useCallback(async () => {
    if (!load) return;
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await load();
      if (mine !== generation.current) return;
      setData(value);
      setError(null);
    } catch (failure) {
      if (mine !== generation.current) return;
      setError(failure instanceof ApiFailure ? failure : new ApiFailure(0, 'NETWORK', String(failure)));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, deps);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { data, error, loading, reload };
}

/**
 * Calls `tick` every `intervalMs` while `active` and the tab is visible (a hidden tab makes no
 * metered calls), and once at once when the tab becomes visible again.
 */
export function useInterval(tick: () => void, intervalMs: number, active: boolean): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') latest.current();
    }, intervalMs);
    const onVisible = () => {
      if (document.visibilityState === 'visible') latest.current();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [intervalMs, active]);
}
