// The console's API keys page: the list with last use and state, create (the secret shown once,
// then gone from the page at the next view), revoke and rotate, each with a confirm.
import { button, call, row, when } from './console-api.js';

interface KeyView {
  id: number;
  name: string;
  scopes: string[];
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

type Say = (text: string, error?: boolean) => void;

function state(k: KeyView): string {
  if (!k.revokedAt) return 'active';
  return Date.parse(k.revokedAt) > Date.now() ? `stops ${when(k.revokedAt)}` : `revoked ${when(k.revokedAt)}`;
}

function showSecret(name: string, key: string): void {
  document.querySelector('#secret-name')!.textContent = name;
  document.querySelector('#secret-key')!.textContent = key;
  document.querySelector<HTMLElement>('#secret')!.hidden = false;
}

/** Forgets a shown secret (leaving the page, signing out). */
export function hideSecret(): void {
  document.querySelector('#secret-key')!.textContent = '';
  document.querySelector<HTMLElement>('#secret')!.hidden = true;
}

export async function showKeys(say: Say): Promise<void> {
  const keys = await call<KeyView[]>('GET', '/keys');
  const body = document.querySelector<HTMLTableSectionElement>('#keys-table tbody')!;
  body.replaceChildren(
    ...keys.map((k) => {
      const active = state(k) === 'active';
      const actions = active
        ? [
            button('Revoke', () => {
              if (!confirm(`Revoke key ${k.id} "${k.name}"? It stops working at once.`)) return;
              call('POST', `/keys/${k.id}/revoke`).then(
                () => (say(`Key ${k.id} revoked.`), showKeys(say)),
                (err: Error) => say(err.message, true),
              );
            }),
            button('Rotate', () => {
              if (!confirm(`Replace key ${k.id} "${k.name}" by a new one? The old one stops at once.`)) return;
              call<{ id: number; name: string; key: string }>('POST', `/keys/${k.id}/rotate`, { graceSeconds: 0 }).then(
                (r) => (showSecret(`${r.id} "${r.name}"`, r.key), showKeys(say)),
                (err: Error) => say(err.message, true),
              );
            }),
          ]
        : [];
      const tr = row([k.id, k.name, k.scopes.join(', '), when(k.createdAt), when(k.lastUsedAt), state(k)], ...actions);
      tr.dataset['id'] = String(k.id);
      tr.dataset['state'] = active ? 'active' : 'revoked';
      if (!active) tr.classList.add('revoked');
      return tr;
    }),
  );
}

export function setUpKeyForm(say: Say): void {
  const form = document.querySelector<HTMLFormElement>('#key-form')!;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const input = { name: String(f.get('name')), scopes: f.getAll('scope').map(String) };
    call<{ id: number; name: string; key: string }>('POST', '/keys', input).then(
      (k) => {
        form.reset();
        showSecret(`${k.id} "${k.name}"`, k.key);
        return showKeys(say);
      },
      (err: Error) => say(err.message, true),
    );
  });
}
