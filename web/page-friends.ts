// The board page's friends: a pasted list of up to 1,000 ids compared on the board, a page at a time.
import { $, boardVars, client, failed, state } from './page-state.js';
import { row } from './page-board.js';

const FRIENDS_PAGE = 20;
/** The friends page shown (null: the first), and where the next one starts (null: none). */
let friendsAfter: string | null = null;
let friendsNext: string | null = null;

export async function showFriends(): Promise<void> {
  const page =
    state.friends.length === 0
      ? null
      : await client.friendsPage({
          ...boardVars(),
          playerIds: state.friends,
          first: FRIENDS_PAGE,
          after: friendsAfter,
        });
  $('#friends-table tbody').replaceChildren(...(page?.entries ?? []).map((e) => row(e)));
  $('#friends-count').textContent = page ? `${page.ranked} of ${state.friends.length} ranked` : '';
  friendsNext = page?.hasNextPage ? page.endCursor : null;
  $('#friends-next').hidden = friendsNext === null;
  $('#friends-first').hidden = friendsAfter === null;
}

export function turnFriendsPage(after: string | null): void {
  friendsAfter = after;
  void showFriends().catch(failed);
}

/** Shows the page after the one shown. */
export const nextFriendsPage = () => turnFriendsPage(friendsNext);
