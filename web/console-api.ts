// The console's calls to its JSON API (/console/api/, src/console/http.ts): same origin, the
// session cookie sent by the browser, and on every mutation the session's CSRF token in a header.
// The API key itself is sent once, by signIn, and kept nowhere.

let csrf = '';
let onSignedOut = () => {};

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What to do when the server says the session is gone (expired, signed out, key revoked). */
export function whenSignedOut(f: () => void): void {
  onSignedOut = f;
}

export async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  const res = await fetch(`/console/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await res.json().catch(() => ({}))) as T & { error?: string };
  if (!res.ok) {
    if (res.status === 401 && path !== '/session') onSignedOut();
    throw new ApiError(res.status, data.error ?? `HTTP ${res.status}`);
  }
  return data;
}

export interface SessionInfo {
  name: string;
  keyId: number;
  csrf: string;
}

/** The current session, or undefined when signed out. */
export async function currentSession(): Promise<SessionInfo | undefined> {
  try {
    return useSession(await call<SessionInfo>('GET', '/session'));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return undefined;
    throw err;
  }
}

export async function signIn(key: string): Promise<SessionInfo> {
  return useSession(await call<SessionInfo>('POST', '/session', { key }));
}

export async function signOut(): Promise<void> {
  await call('DELETE', '/session');
  csrf = '';
}

function useSession(s: SessionInfo): SessionInfo {
  csrf = s.csrf;
  return s;
}

/** A table cell's text for an instant: "2026-12-06 21:14" (UTC), or "-". */
export const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')}` : '-');

/** A <tr> of text cells, then `extra` (buttons). */
export function row(cells: Array<string | number>, ...extra: HTMLElement[]): HTMLTableRowElement {
  const tr = document.createElement('tr');
  for (const c of cells) tr.insertCell().textContent = String(c);
  const last = tr.insertCell();
  last.append(...extra);
  return tr;
}

export function button(text: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}
