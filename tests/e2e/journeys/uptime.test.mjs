// Uptime journey in a real Chromium against a real portal run for local development (PRODUCT.md §5), whose
// monitor runs every 2 seconds: the app's server is a real `@mentra/sdk` AppServer on this machine,
// registered as `http://localhost:<port>` (kept as typed on such a portal); its publish dialog shows the
// live health check passing; once approved it reads Online on App Status and today's UTC day bar fills
// (spec §2 App Status and app detail); Check now pings it live; its server stops and it turns Offline, with
// the failed checks in today's Problems list, and the organization's contact gets the outage e-mail after
// five failed checks. An accessibility scan of both tabs.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { AppServer } from "@mentra/sdk";

import { freePort, screenshot } from "../support/harness.mjs";
import {
  expectNoSeriousA11yViolations,
  productCall,
  signUp as signUpIn,
} from "../support/journey.mjs";
import { journeyServers } from "../support/servers.mjs";

const ADMIN = "ada@example.com";
const CONTACT = "ops@healthglass.test";
const PACKAGE = "com.example.healthglass";
const APP_NAME = "Health Glass";

let health;
/** The SDK server's URL, kept after it stops. */
let healthUrl;

/**
 * The SDK's own AppServer (its Express app, with the `/health` route the SDK defines) listening on loopback.
 * `start()` is not called: besides listening it asks the SDK's cloud for the latest version, and these
 * tests reach nothing beyond this machine.
 */
async function startSdkAppServer() {
  const port = await freePort();
  const sdk = new AppServer({
    packageName: PACKAGE,
    apiKey: "local-development-key",
    port,
  });
  const listener = await new Promise((ok, fail) => {
    const server = sdk
      .getExpressApp()
      .listen(port, "127.0.0.1", () => ok(server));
    server.once("error", fail);
  });
  return {
    url: `http://localhost:${port}`,
    stop: () =>
      new Promise((ok) => {
        listener.closeAllConnections();
        listener.close(ok);
      }),
  };
}

const servers = journeyServers("uptime", {
  env: {
    PORTAL_ADMIN_EMAILS: ADMIN,
    PORTAL_ALLOW_PRIVATE_TARGETS: "true",
    PORTAL_UPTIME_INTERVAL_SECS: "2",
  },
});

before(async () => {
  health = await startSdkAppServer();
});

after(async () => {
  await health?.stop();
});

const signUp = (page, email) => signUpIn(page, servers, email);

/**
 * Registers the app in the admin's own organization through the product API, with the SDK server's
 * `http://localhost` URL, which a portal run for local development keeps as typed; answers the organization.
 */
async function registerLocalApp(page) {
  const orgs = await productCall(page, "GET", "/api/orgs");
  const org = orgs.body.data[0];
  const profile = await productCall(page, "PUT", `/api/orgs/${org.id}`, {
    name: "Health Works",
    profile: { contactEmail: CONTACT },
  });
  assert.equal(profile.status, 200, JSON.stringify(profile.body));
  const registered = await productCall(
    page,
    "POST",
    "/api/dev/apps/register",
    {
      packageName: PACKAGE,
      name: APP_NAME,
      description: "Health on your glasses",
      publicUrl: `${health.url}/`,
      logoURL: "https://cdn.healthglass.test/logo.png",
      appType: "standard",
    },
    org.id,
  );
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  assert.equal(
    registered.body.app.publicUrl,
    health.url,
    "a loopback http:// server URL is kept as typed",
  );
  return org;
}

/** Submits the app from My Apps: the checklist accepts the local server and the live check passes. */
async function publishFromMyApps(page) {
  await page.goto(`${servers.portal.url}/apps`);
  await page.getByRole("button", { name: `Actions for ${APP_NAME}` }).click();
  await page.getByRole("menuitem", { name: "Publish to App Store" }).click();
  const dialog = page.getByRole("dialog", { name: "Publish to App Store" });
  await dialog
    .getByText("Server URL on this machine (local development)")
    .waitFor();
  await dialog
    .getByText('Server answers GET /health with 200 {"status":"healthy"}')
    .waitFor();
  await dialog.getByText(/^Answered in \d+ ms$/).waitFor();
  await screenshot(page, "uptime-publish-live-check");
  await dialog.getByRole("button", { name: "Submit for Review" }).click();
  await page.getByText("App submitted for publication!").waitFor();
}

/** Approves it from the App Submissions tab (a self-review: the admin is in the app's organization). */
async function approve(page) {
  await page.goto(`${servers.portal.url}/admin`);
  await page.getByRole("heading", { level: 1, name: "Admin Panel" }).waitFor();
  await page.getByRole("tab", { name: "App Submissions" }).click();
  await page
    .getByRole("table", { name: "App submissions" })
    .getByRole("button", { name: `Review ${APP_NAME}` })
    .click();
  const dialog = page.getByRole("dialog", { name: "Review App Submission" });
  await dialog.getByText(APP_NAME).first().waitFor();
  await dialog.getByRole("button", { name: "Approve" }).click();
  await dialog.waitFor({ state: "detached" });
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
    const context = await servers.browser.newContext({
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
  await registerLocalApp(page);
  await publishFromMyApps(page);
  await approve(page);

  await page.goto(`${servers.portal.url}/admin?tab=status`);
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

  // The filter filters: the app is PUBLISHED.
  await page.getByRole("combobox", { name: "Status" }).click();
  await page.getByRole("option", { name: "Submitted" }).click();
  await page.getByText("No apps match your search").waitFor();
  await page.getByRole("combobox", { name: "Status" }).click();
  await page.getByRole("option", { name: "Published" }).click();
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
  healthUrl = health.url;
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

  // Five failed checks in a row of a published app: its organization's contact hears of it, once (the
  // contact's first e-mail was the approval).
  const outage = await servers.smtp.mailTo(CONTACT, 2);
  assert.match(outage.subject, new RegExp(`${APP_NAME} is offline$`));
  assert.ok(
    outage.message.includes(`${healthUrl}/health`),
    "the e-mail names the health URL",
  );
  await page.waitForTimeout(3000);
  const outages = servers.smtp
    .messages()
    .filter((m) => m.includes(`${APP_NAME} is offline\n`));
  assert.equal(outages.length, 1, "one outage e-mail a day");
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
