// The console's seasons page: the list (status, dates, boards, league, repeats), a form to create
// one (the fields of createSeason, plus JSON for the rest), a close with a confirm.
import { button, call, row, when } from './console-api.js';

interface SeasonView {
  id: number;
  name: string;
  status: string;
  startsAt: string;
  endsAt: string;
  boards: string[];
  boardDefinitions: string[];
  league: string | null;
  repeats: boolean;
}

type Say = (text: string, error?: boolean) => void;

export async function showSeasons(say: Say): Promise<void> {
  const seasons = await call<SeasonView[]>('GET', '/seasons');
  const body = document.querySelector<HTMLTableSectionElement>('#seasons-table tbody')!;
  body.replaceChildren(
    ...seasons
      .sort((a, b) => b.id - a.id)
      .map((s) => {
        const close =
          s.status === 'CLOSED'
            ? []
            : [
                button('Close', () => {
                  if (!confirm(`Close season ${s.id} "${s.name}" now? Its final ranks are written; it cannot reopen.`))
                    return;
                  call('POST', `/seasons/${s.id}/close`).then(
                    () => (say(`Season ${s.id} closed.`), showSeasons(say)),
                    (err: Error) => say(err.message, true),
                  );
                }),
              ];
        const tr = row(
          [
            s.id,
            s.name,
            s.status,
            when(s.startsAt),
            when(s.endsAt),
            s.boards.join(', '),
            s.league ?? '-',
            s.repeats ? 'yes' : 'no',
          ],
          ...close,
        );
        // The boards' definitions on hover (the cell keeps to names).
        tr.cells[5]!.title = s.boardDefinitions.join('\n');
        tr.dataset['id'] = String(s.id);
        tr.dataset['status'] = s.status;
        return tr;
      }),
  );
}

/** A datetime-local value (the browser's time zone) as an ISO instant. */
const instant = (local: string) => new Date(local).toISOString();

export function setUpSeasonForm(say: Say): void {
  const form = document.querySelector<HTMLFormElement>('#season-form')!;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const f = new FormData(form);
    let advanced: Record<string, unknown> = {};
    const text = String(f.get('advanced') ?? '').trim();
    try {
      if (text) advanced = JSON.parse(text) as Record<string, unknown>;
    } catch {
      say('Advanced: not valid JSON', true);
      return;
    }
    const input = {
      name: String(f.get('name')),
      startsAt: instant(String(f.get('startsAt'))),
      endsAt: instant(String(f.get('endsAt'))),
      scoring: String(f.get('scoring')),
      // With boards, each board carries its own maximum (maxValue).
      ...('boards' in advanced ? {} : { maxPointsPerMatch: Number(f.get('maxPointsPerMatch')) }),
      ...advanced,
    };
    call<SeasonView>('POST', '/seasons', { input }).then(
      (s) => {
        form.reset();
        say(`Season ${s.id} "${s.name}" created.`);
        return showSeasons(say);
      },
      (err: Error) => say(err.message, true),
    );
  });
}
