/**
 * Who is signed in and what their key may call. The session comes from GET /v1/session (which also
 * hands out the CSRF token), the access map from GET /v1/pricing/access, so a page can say "needs
 * Tier 2" up front instead of making a call that is bound to be refused.
 */
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import type { AccessReport, EndpointAccess, Session } from '../../services/http/types.generated.js';
import { get, send, setCsrfToken } from './api.js';

export interface SessionState {
  status: 'loading' | 'signed-out' | 'signed-in';
  session: Session | null;
  access: AccessReport | null;
  /** The access entry of an operation, e.g. `GET /v1/markets/{id}/trades`. */
  accessOf: (operation: string) => EndpointAccess | undefined;
  /** Loads the session and access report again (after sign-in, or when balances may have changed). */
  refresh: () => Promise<void>;
  signIn: (apiKey: string) => Promise<void>;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

/** Whether the page was served with a live session cookie (the shell says so; the cookie itself is unreadable here). */
function servedSignedIn(): boolean {
  return document.querySelector('meta[name="tapeline-session"]')?.getAttribute('content') === 'active';
}

export function SessionProvider(props: { children: ComponentChildren }) {
  const [status, setStatus] = useState<SessionState['status']>(servedSignedIn() ? 'loading' : 'signed-out');
  const [session, setSession] = useState<Session | null>(null);
  const [access, setAccess] = useState<AccessReport | null>(null);

  const refresh = useCallback(async () => {
    try {
      const [current, report] = await Promise.all([get<Session>('/session'), get<AccessReport>('/pricing/access')]);
      setCsrfToken(current.csrf_token);
      setSession(current);
      setAccess(report);
      setStatus('signed-in');
    } catch {
      setSession(null);
      setAccess(null);
      setStatus('signed-out');
    }
  }, []);

  useEffect(() => {
    if (status === 'loading') void refresh();
  }, []);

  const signIn = useCallback(
    async (apiKey: string) => {
      const started = await send<Session>('POST', '/session', { api_key: apiKey });
      setCsrfToken(started.csrf_token);
      await refresh();
    },
    [refresh],
  );

  const signOut = useCallback(async () => {
    await send('DELETE', '/session');
    setCsrfToken('');
    setSession(null);
    setAccess(null);
    setStatus('signed-out');
  }, []);

  const accessOf = useCallback(
    (operation: string) => {
      const [method, path] = operation.split(' ');
      return access?.endpoints.find((e) => e.method === method && e.path === path);
    },
    [access],
  );

  return (
    <SessionContext.Provider value={{ status, session, access, accessOf, refresh, signIn, signOut }}>
      {props.children}
    </SessionContext.Provider>
  );
}
