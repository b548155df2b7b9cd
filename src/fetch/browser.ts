import { existsSync } from 'node:fs';
import { UserError } from '../config/errors.js';

/** Where the Chromium we launch comes from, for messages and the summary. */
export interface BrowserLocation {
  executablePath: string | undefined;
  source: '--browser' | 'CHROMIUM_PATH' | '/usr/bin/chromium' | 'playwright';
}

export class BrowserNotFoundError extends UserError {}

const INSTALL_HINT =
  'No Chromium found: install one with `apt-get install chromium` (Debian/Ubuntu), ' +
  'or pass --browser PATH / set CHROMIUM_PATH to a Chromium or Chrome executable.';

/**
 * Resolve the browser executable in the documented order: the --browser flag, the
 * CHROMIUM_PATH variable, Debian's /usr/bin/chromium, then Playwright's own download.
 * Throws BrowserNotFoundError (a one-sentence user message) when none exists.
 */
export async function resolveBrowser(flag?: string): Promise<BrowserLocation> {
  if (flag) {
    if (!existsSync(flag)) throw new BrowserNotFoundError(`--browser ${flag}: no such file. ${INSTALL_HINT}`);
    return { executablePath: flag, source: '--browser' };
  }
  const env = process.env.CHROMIUM_PATH;
  if (env) {
    if (!existsSync(env)) throw new BrowserNotFoundError(`CHROMIUM_PATH=${env}: no such file. ${INSTALL_HINT}`);
    return { executablePath: env, source: 'CHROMIUM_PATH' };
  }
  if (existsSync('/usr/bin/chromium')) return { executablePath: '/usr/bin/chromium', source: '/usr/bin/chromium' };
  try {
    const { chromium } = await import('playwright');
    const own = chromium.executablePath();
    if (own && existsSync(own)) return { executablePath: undefined, source: 'playwright' };
  } catch {
    // playwright not resolvable or no download: fall through to the message
  }
  throw new BrowserNotFoundError(INSTALL_HINT);
}

/**
 * Chromium flags for this closed-network machine: without the background-networking
 * switches Chromium keeps trying to reach Google's hosts and floods refused connections.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Launch options for Playwright's chromium.launch / Crawlee's launchContext.launchOptions. */
export async function browserLaunchOptions(opts: { browser?: string; headed?: boolean; slowMo?: number } = {}) {
  const loc = await resolveBrowser(opts.browser);
  return {
    location: loc,
    launchOptions: {
      executablePath: loc.executablePath,
      headless: !opts.headed,
      slowMo: opts.slowMo,
      args: CHROMIUM_ARGS,
    },
  };
}
