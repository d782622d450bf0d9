// Headless Chromium for the page's tests: Debian's `chromium` package (installed by .ci/run),
// driven by playwright-core through its executablePath; no browser is downloaded.
import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';

/** CHROMIUM_PATH, or `chromium` on the PATH; fails with the install command when there is none. */
function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('no chromium on the PATH: apt-get install -y chromium (or set CHROMIUM_PATH)');
  }
}

/** A headless Chromium of the machine's, for one test file (close it in afterAll). */
export function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
}

/**
 * Waits for the page's status line to say it is live (its first subscription answered). A whole
 * suite beside it (JVMs starting, child processes) can hold a page's first load for many seconds,
 * so the wait is long, and a timeout says what the status line said instead.
 */
export async function waitLive(page: Page, timeout = 30_000): Promise<void> {
  try {
    await page.waitForSelector('#status.live', { timeout });
  } catch (err) {
    const said = await page.textContent('#status').catch(() => '(no page)');
    throw new Error(`${(err as Error).message}\n#status said: ${JSON.stringify(said)}`, { cause: err });
  }
}
