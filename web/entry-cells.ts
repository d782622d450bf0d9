// An entry row's cells, shared by the board page's tables (page-board.ts) and the league panel
// (league.ts): one <td> of class `cls` per [cls, text], the name cell titled with the player's id.
export function appendCells(
  tr: HTMLTableRowElement,
  playerId: string,
  cells: ReadonlyArray<readonly [string, string]>,
): void {
  for (const [cls, text] of cells) {
    const td = document.createElement('td');
    td.className = cls;
    td.textContent = text;
    if (cls === 'name') td.title = `player ${playerId}`;
    tr.append(td);
  }
}
