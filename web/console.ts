// The console at /console (web/console.html): sign in with an admin API key (sent once, in a POST;
// the server answers with an HttpOnly session cookie), then its pages: each a link in #nav
// (data-view=NAME), a <section id=NAME-view> in console.html and an entry in `views` below.
// Served by ladder itself, no framework, no CDN (scripts/build-web.sh).
import { currentSession, signIn, signOut, whenSignedOut, type SessionInfo } from './console-api.js';
import { setUpAudit, showAudit } from './console-audit.js';
import { showCharts } from './console-charts.js';
import { setUpIngest, showIngest } from './console-ingest.js';
import { hideSecret, setUpKeyForm, showKeys } from './console-keys.js';
import { showOperations } from './console-operations.js';
import { setUpPlayers, showPlayers } from './console-players.js';
import { setUpSeasonForm, showSeasons } from './console-seasons.js';

type Say = (text: string, error?: boolean) => void;

/** The pages: the first is shown after sign-in; `show` fills the page each time it is opened. */
const views: Record<string, { show(say: Say): Promise<void>; setUp?(say: Say): void }> = {
  seasons: { show: showSeasons, setUp: setUpSeasonForm },
  keys: { show: showKeys, setUp: setUpKeyForm },
  players: { show: showPlayers, setUp: setUpPlayers },
  operations: { show: showOperations },
  audit: { show: showAudit, setUp: setUpAudit },
  ingest: { show: showIngest, setUp: setUpIngest },
  charts: { show: showCharts },
};
const viewNames = Object.keys(views);

const $ = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;

function say(text: string, error = false): void {
  const m = $('#message');
  m.textContent = text;
  m.className = error ? 'error' : '';
  m.hidden = text === '';
}

function signedOut(text = ''): void {
  hideSecret();
  for (const sel of ['#nav', ...viewNames.map((v) => `#${v}-view`)]) $(sel).hidden = true;
  $('#sign-in').hidden = false;
  say(text, text !== '');
}

async function show(): Promise<void> {
  const asked = location.hash.slice(1);
  const view = asked in views ? asked : viewNames[0]!;
  hideSecret();
  $('#sign-in').hidden = true;
  $('#nav').hidden = false;
  for (const a of document.querySelectorAll<HTMLElement>('#nav a')) {
    if (a.dataset['view'] === view) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  for (const v of viewNames) $(`#${v}-view`).hidden = v !== view;
  try {
    await views[view]!.show(say);
  } catch (err) {
    say((err as Error).message, true);
  }
}

function signedIn(s: SessionInfo): void {
  $('#who').textContent = `signed in as ${s.name}`;
  say('');
  void show();
}

whenSignedOut(() => signedOut('Your session ended: sign in again.'));
window.addEventListener('hashchange', () => {
  if (!$('#nav').hidden) void show();
});
$<HTMLFormElement>('#sign-in').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = $<HTMLInputElement>('#key');
  const key = input.value.trim();
  input.value = ''; // not kept in the page either
  signIn(key).then(signedIn, (err: Error) => signedOut(`Sign-in refused: ${err.message}`));
});
$('#sign-out').addEventListener('click', () => {
  signOut().then(
    () => signedOut(),
    () => signedOut(),
  );
});
for (const v of Object.values(views)) v.setUp?.(say);
currentSession().then(
  (s) => (s ? signedIn(s) : signedOut()),
  (err: Error) => signedOut(err.message),
);
