// Uptime journey in a real Chromium against a real portal whose monitor runs every 2 seconds (spec §2 App
// Status and app detail, PRODUCT.md §5): an app whose server answers `/health` healthy reads Online and
// today's UTC day bar fills; Check now pings it live; its server stops and it turns Offline, with the
// failed checks in today's Problems list; an accessibility scan of both tabs.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";

import {
  freePort,
  launchBrowser,
  saveLogs,
  screenshot,
  sqliteRun,
  startPortal,
  startSmtp,
} from "../support/harness.mjs";
import {
  expectNoSeriousA11yViolations,
  signUp as signUpIn,
} from "../support/journey.mjs";

const ADMIN = "ada@example.com";
const PACKAGE = "com.example.healthglass";
const APP_NAME = "Health Glass";

let smtp;
let portal;
let browser;
let health;

/** A tiny app server: `/health` answers `{"status":"healthy"}`, as an `@mentra/sdk` AppServer does. */
async function startHealthServer() {
  const port = await freePort();
  const server = createServer((request, response) => {
    if (request.url === "/health") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ status: "healthy" }));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(port, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(ok);
      }),
  };
}

before(async () => {
  smtp = await startSmtp();
  health = await startHealthServer();
  portal = await startPortal({
    SMTP_URL: smtp.url,
    PORTAL_ADMIN_EMAILS: ADMIN,
    PORTAL_ALLOW_PRIVATE_TARGETS: "true",
    PORTAL_UPTIME_INTERVAL_SECS: "2",
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (portal) saveLogs("uptime-portal", portal.logs());
  await portal?.stop();
  await health?.stop();
  await smtp?.stop();
});

const signUp = (page, email) => signUpIn(page, { portal, smtp }, email);

/** Registers the app as SUBMITTED in the admin's organization, straight in the database (as the admin journey does). */
function insertSubmittedApp(publicUrl) {
  const now = Date.now();
  const changed = sqliteRun(
    portal.databasePath,
    `INSERT INTO apps (package_name, org_id, developer_id, name, description, onboarding_instructions,
       public_url, logo_url, webview_url, is_public, app_store_status, app_type, created_at, updated_at,
       tools, settings, hardware_requirements, permissions, shared_with_organization, shared_with_emails)
     SELECT ?, m.org_id, m.user_id, ?, 'Health on your glasses', '', ?, '', NULL, 0, 'SUBMITTED',
       'standard', ?, ?, '[]', '[]', '[]', '[]', 0, '[]'
     FROM org_members m JOIN accounts a ON a.id = m.user_id WHERE a.email = ? LIMIT 1`,
    [PACKAGE, APP_NAME, publicUrl, now, now, ADMIN],
  );
  assert.equal(changed, 1, "the app row is inserted");
}

const todayUtc = () => new Date().toISOString().slice(0, 10);

/** Clicks Update until `check` holds (the screens refetch on demand, not on a timer). */
async function updateUntil(page, what, check, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(1000);
    await page.getByRole("button", { name: "Update" }).click();
  }
}

describe("uptime journey", () => {
  test("an app whose server is up reads Online and fills its day; stopped, it turns Offline", async () => {
    const context = await browser.newContext({
      bypassCSP: true,
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    try {
      await journey(page);
    } catch (error) {
      await screenshot(page, "uptime-failure");
      throw error;
    } finally {
      await context.close();
    }
  });
});

async function journey(page) {
  await signUp(page, ADMIN);
  await page
    .getByRole("heading", { level: 1, name: "Developer Dashboard" })
    .waitFor();
  insertSubmittedApp(health.url);

  await page.goto(`${portal.url}/admin?tab=status`);
  await page.getByRole("heading", { level: 1, name: "Admin Panel" }).waitFor();
  await page.getByText(/Days are UTC days/).waitFor();
  const row = page.getByRole("listitem", { name: APP_NAME });
  await row.waitFor();
  const dayBar = (date) =>
    row.locator(`[role="listitem"][aria-label^="${barLabel(date)}"]`);
  await updateUntil(page, "Online and a green bar for today", async () => {
    const online =
      (await row.getByText("Online", { exact: true }).count()) === 1;
    const colour = await dayBar(todayUtc()).getAttribute("data-colour");
    return online && colour === "green";
  });
  const bars = await row
    .getByRole("list", { name: `Daily health of ${APP_NAME}` })
    .getByRole("listitem")
    .count();
  const now = new Date();
  const daysInMonth = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0),
  ).getUTCDate();
  assert.equal(bars, daysInMonth, "one bar per day of the real month");
  assert.match(await row.textContent(), /Uptime\s*100\.0%/);
  await dayBar(todayUtc()).hover();
  const tip = page.getByRole("tooltip");
  await tip.waitFor();
  assert.match(
    await tip.textContent(),
    /Healthy: \d+.*Unhealthy: 0.*Total: \d+/s,
  );
  await screenshot(page, "uptime-status-online");
  await page.mouse.move(0, 0);
  await tip.waitFor({ state: "hidden" });
  await expectNoSeriousA11yViolations(page, "App Status");

  // The filter filters: the app is SUBMITTED.
  await page.getByRole("combobox", { name: "Status" }).click();
  await page.getByRole("option", { name: "Published" }).click();
  await page.getByText("No apps match your search").waitFor();
  await page.getByRole("combobox", { name: "Status" }).click();
  await page.getByRole("option", { name: "Submitted" }).click();
  await row.waitFor();

  // The detail tab.
  await row.getByRole("button", { name: APP_NAME }).click();
  await page.getByRole("tab", { name: APP_NAME, selected: true }).waitFor();
  await page.getByText("All systems operational").waitFor();
  await page.getByText("Uptime 100.0%").waitFor();
  await page.getByTestId("uptime-chart").locator("svg").first().waitFor();
  // The chart's tooltip of today: the day (UTC) and its counts.
  await page
    .getByTestId("uptime-chart")
    .locator('rect[class*="Bar"]')
    .nth(new Date().getUTCDate() - 1)
    .hover();
  const chartTip = page.getByText(/^Healthy: \d+, Unhealthy: 0, Total: \d+$/);
  await chartTip.waitFor();
  await page
    .getByText(`${barLabel(todayUtc())} (UTC)`)
    .last()
    .waitFor();
  await page.mouse.move(0, 0);
  await page.getByRole("button", { name: "Check now" }).click();
  await page.getByText(/^Online: healthy \(HTTP 200, \d+ ms\)$/).waitFor();
  await screenshot(page, "uptime-detail-online");
  await expectNoSeriousA11yViolations(page, "app detail");

  // The app's server stops: the monitor's next checks fail.
  await health.stop();
  health = null;
  await updateUntil(
    page,
    "System experiencing issues",
    async () =>
      (await page.getByText("System experiencing issues").count()) === 1,
  );
  await page.getByText(/Current status:/).waitFor();
  // Today's problems, by a click on today's bar of the chart: the failed checks, newest first.
  const chartBars = page
    .getByTestId("uptime-chart")
    .locator('rect[class*="Bar"]');
  assert.equal(
    await chartBars.count(),
    daysInMonth,
    "the chart has one bar per day of the real month",
  );
  await chartBars.nth(new Date().getUTCDate() - 1).click();
  assert.match(
    await page.getByRole("combobox", { name: "Day (UTC)" }).textContent(),
    new RegExp(`^${barLabel(todayUtc())}`),
  );
  const problems = page.getByRole("table", { name: /Problems on/ });
  await problems.waitFor();
  const first = problems.getByRole("row").nth(1);
  assert.match(
    await first.textContent(),
    new RegExp(`${PACKAGE.replaceAll(".", "\\.")}.*UTC.*Offline`),
  );
  await page.getByRole("button", { name: "Check now" }).click();
  await page.getByText(/^Offline: /).waitFor();
  await screenshot(page, "uptime-detail-offline");
  await expectNoSeriousA11yViolations(page, "app detail offline");

  // Back on App Status the app reads Offline and today's bar turns mixed.
  await page.getByRole("button", { name: `Close the ${APP_NAME} tab` }).click();
  await row.waitFor();
  await updateUntil(page, "Offline on App Status", async () => {
    const offline =
      (await row.getByText("Offline", { exact: true }).count()) === 1;
    return (
      offline &&
      (await dayBar(todayUtc()).getAttribute("data-colour")) === "yellow"
    );
  });
  await screenshot(page, "uptime-status-offline");
}

/** The start of a day bar's accessible name: "Nov 24, 2026". */
function barLabel(date) {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString("en-US", {
    month: "short",
    day: "numeric",
    year: "numeric",
    timeZone: "UTC",
  });
}
