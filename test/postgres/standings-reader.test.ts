import { describe, expect, it } from 'vitest';
import { copyPages } from '../../src/postgres/standings-reader.js';

/** The pages copyPages makes of these chunks, as plain rows. */
async function pagesOf(chunks: string[], pageSize: number) {
  async function* source() {
    for (const c of chunks) yield Buffer.from(c, 'latin1');
  }
  const pages: Array<{ board: string; rows: Array<[string, number, number]> }> = [];
  for await (const p of copyPages(source(), 'DAY', '2026-01-02', pageSize)) {
    expect(p.points.length).toBe(p.playerIds.length);
    expect(p.achievedMs.length).toBe(p.playerIds.length);
    pages.push({
      board: `${p.window} ${p.period}`,
      rows: p.playerIds.map((id, i) => [id, p.points[i]!, p.achievedMs[i]!]),
    });
  }
  return pages;
}

describe('copyPages', () => {
  it('parses COPY text rows into pages of the page size, the last one shorter', async () => {
    const rows = ['1\t10\t1767312000000\n', '2\t10\t1767312000001\n', '3\t9\t1767312000002\n'];
    expect(await pagesOf([rows.join('')], 2)).toEqual([
      {
        board: 'DAY 2026-01-02',
        rows: [
          ['1', 10, 1767312000000],
          ['2', 10, 1767312000001],
        ],
      },
      { board: 'DAY 2026-01-02', rows: [['3', 9, 1767312000002]] },
    ]);
  });

  it('joins a row split across chunks, anywhere in it', async () => {
    const text = '9007199254740993\t0\t-1000\n42\t2097151\t0\n';
    const expected = [
      ['9007199254740993', 0, -1000],
      ['42', 2097151, 0],
    ];
    for (let cut = 1; cut < text.length; cut++) {
      const pages = await pagesOf([text.slice(0, cut), '', text.slice(cut)], 10);
      expect(pages.flatMap((p) => p.rows)).toEqual(expected);
    }
  });

  it('gives no page for no rows', async () => {
    expect(await pagesOf([], 5)).toEqual([]);
  });

  it.each([
    ['a missing column', '1\t2\n'],
    ['a NULL', '1\t\\N\t3\n'],
    ['an empty player id', '\t2\t3\n'],
    ['a non-integer', '1\t2.5\t3\n'],
    ['a row cut short', '1\t2\t3\n4\t5'],
  ])('refuses %s', async (_name, text) => {
    await expect(pagesOf([text], 10)).rejects.toThrow(/unexpected COPY row from standings/);
  });
});
