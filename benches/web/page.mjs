// Opens a benchmark page of this repository in headless Chromium (the tests' flags)
// and resolves to the `window.result` it sets; throws the page's error, if any. And
// the checkpoint benches' page (`benchPage`): the demo page served with a folder as
// /data, in a Chromium of its own profile, nxrig loaded, and an
// `<input type=file multiple id=bench>` to give it files by `page.setInputFiles`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { FLAGS, browser, serve } from '../../www/e2e.mjs';
import { checkpointServer } from '../../www/e2e-server.mjs';

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

/** Resolves to `{ page, close }`: the page ready, and what ends its browser and server. */
export async function benchPage(root, dir) {
  const server = await checkpointServer({ www: join(root, 'www'), data: dir, uploads: dir });
  const ctx = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: '/usr/bin/chromium', headless: true, args: FLAGS });
  const page = ctx.pages()[0] ?? await ctx.newPage();
  await page.goto(`${server.url}/index.html`);
  await page.waitForFunction(() => window.nxrigReady === true, null, { timeout: 60000 });
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.multiple = true;
    input.id = 'bench';
    document.body.append(input);
  });
  return {
    page,
    async close() {
      await ctx.close();
      await server.close();
    },
  };
}
