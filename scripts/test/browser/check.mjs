// Renders rankeval's HTML report in headless Chromium and checks it:
// no console error, no page error, no request leaving the file, every chart
// present and drawn; takes screenshots: the whole page (page.png), its first
// screen (top.png) and each section (<id>.png).
//
//   node check.mjs REPORT.html OUT_DIR [kind=count ...]
//
// Each `kind=count` says how many charts of that kind (the figure's
// `data-chart`) the page must hold, e.g. distribution=6 at-k=3; and
// `explained=N`, how many changed queries open to explain tables (the
// first is opened, and must hold two panels, the baseline's and the run's,
// with a formula under each table; a panel without lists says why).
// Exit code 0 when every check passes, 1 otherwise (each failure printed).

import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [report, outDir, ...expectations] = process.argv.slice(2);
if (!report || !outDir) {
  console.error("usage: node check.mjs REPORT.html OUT_DIR [kind=count ...]");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

const failures = [];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  // JavaScript off: the page must be whole without it.
  const context = await browser.newContext({
    javaScriptEnabled: false,
    viewport: { width: 1200, height: 900 },
  });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") failures.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  const url = pathToFileURL(resolve(report)).href;
  page.on("request", (request) => {
    if (request.url() !== url) failures.push(`request beyond the file: ${request.url()}`);
  });
  page.on("requestfailed", (request) => failures.push(`failed request: ${request.url()}`));

  const started = Date.now();
  const response = await page.goto(url, { waitUntil: "load" });
  if (!response || !response.ok()) failures.push(`cannot load ${url}`);
  const loaded = Date.now() - started;
  // The first screen, before section screenshots scroll the page.
  await page.screenshot({ path: `${outDir}/top.png` });
  const painted = Date.now() - started;
  console.log(`opened in ${loaded} ms (load event), first screen painted in ${painted} ms`);

  // Charts: read the DOM from Node (JavaScript is off inside the page).
  const figures = await page.locator("figure.chart").all();
  const counts = {};
  for (const figure of figures) {
    const kind = await figure.getAttribute("data-chart");
    const id = await figure.getAttribute("id");
    counts[kind] = (counts[kind] || 0) + 1;
    const svg = figure.locator("svg");
    if ((await svg.count()) !== 1) {
      failures.push(`${id}: no svg`);
      continue;
    }
    const box = await svg.boundingBox();
    if (!box || box.width < 100 || box.height < 50) {
      failures.push(`${id}: drawn ${box ? `${box.width}x${box.height}` : "nowhere"}`);
    }
    const marks = await svg.locator("rect, circle, polyline, path, line").count();
    if (marks < 5) failures.push(`${id}: only ${marks} marks`);
  }
  // The queries that changed most: each opens to its explain tables (one
  // per run); open the first so its screenshot shows them.
  const explained = page.locator("details.explained");
  counts.explained = await explained.count();
  if (counts.explained > 0) {
    await explained.first().locator("summary").click();
    const panels = await explained.first().locator("div.explain").count();
    if (panels !== 2) failures.push(`first changed query: ${panels} explain panels, expected 2`);
    const tables = await explained.first().locator("table.explain").count();
    const formulas = await explained.first().locator("p.formula").count();
    if (tables < 1 || formulas !== tables) {
      failures.push(`first changed query: ${tables} explain tables, ${formulas} formulas`);
    }
  }
  for (const expectation of expectations) {
    const [kind, want] = expectation.split("=");
    const got = counts[kind] || 0;
    if (got !== Number(want)) failures.push(`${kind} charts: ${got}, expected ${want}`);
  }
  for (const id of ["summary", "distributions", "differences", "curves", "changed"]) {
    const section = page.locator(`section#${id}`);
    if ((await section.count()) !== 1) {
      failures.push(`no section #${id}`);
      continue;
    }
    await section.screenshot({ path: `${outDir}/${id}.png` });
  }
  await page.screenshot({ path: `${outDir}/page.png`, fullPage: true });
  console.log(
    `charts: ${Object.entries(counts)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}; screenshots in ${outDir}`,
  );
} finally {
  await browser.close();
}

if (failures.length) {
  for (const failure of failures) console.error(`FAIL ${failure}`);
  process.exit(1);
}
console.log("browser test: ok");
