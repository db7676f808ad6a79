// Opens a benchmark page of this repository in headless Chromium (the tests' flags)
// and resolves to the `window.result` it sets; throws the page's error, if any.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browser, serve } from '../../www/e2e.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function pageResult(path) {
  const [url, server] = await serve(root);
  const b = await browser();
  try {
    const page = await b.newPage();
    page.on('console', (m) => console.log(`page: ${m.text()}`));
    await page.goto(`${url}/${path}`);
    const r = await (await page.waitForFunction(() => window.result, null, { timeout: 900000 })).jsonValue();
    if (r.error) throw new Error(r.error);
    return r;
  } finally {
    await b.close();
    server.kill();
  }
}
