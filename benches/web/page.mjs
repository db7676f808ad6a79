// The page the browser benches run in: the demo page served with `dir` as /data, in a
// headless Chromium of its own profile (the flags of the e2e test), nxrig loaded, and
// an `<input type=file multiple id=bench>` to give it files by `page.setInputFiles`.
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { FLAGS } from '../../www/e2e.mjs';
import { checkpointServer } from '../../www/e2e-server.mjs';

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
