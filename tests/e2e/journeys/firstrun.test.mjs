// The first platform admin of a new portal, as the README tells an operator to make one, on default settings
// (issue 35, item 1): an empty SQLite database, no SMTP server, PORTAL_STAFF_MFA left to its default
// (`required`). The person signs up, opens the setup link the server wrote to its log, becomes platform admin,
// is led to add an authenticator app on Account Security and reaches the Admin Panel; signing in again goes
// through the challenge step. Once at 1280 px and once on a phone (390 px, where Account Security is reached
// through the navigation drawer: item 3); every screen on the way is looked at in light and dark at both
// widths, with axe. The page's Content-Security-Policy stays in force.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { screenshot } from "../support/harness.mjs";
import {
  PASSWORD,
  expectNoSeriousA11yViolations,
  lookAtEverySize,
  productCall,
  fromAccountMenu,
} from "../support/journey.mjs";
import { totpCode } from "../support/totp.mjs";
import { journeyServers } from "../support/servers.mjs";

const servers = journeyServers("firstrun", { smtp: false, portal: false });

/** A portal as `make run` starts it: no SMTP_URL, PORTAL_STAFF_MFA unset (empty means the default). */
function defaultPortal(name) {
  return servers.startPortal(name, { PORTAL_STAFF_MFA: "" });
}

/** The one-time setup link of the server log's "the platform has no admin yet" warning. */
function setupLink(portal) {
  const line = portal
    .logs()
    .split("\n")
    .find((l) => l.includes("the platform has no admin yet"));
  assert.ok(line, `the setup warning in the log: ${portal.logs().slice(-3000)}`);
  const link = line.match(/https?:\/\/[^\s"]+\/setup-admin\?token=[A-Za-z0-9_-]+/)?.[0];
  assert.ok(link, `a setup link in: ${line}`);
  return link;
}

/** Signs up through the dialog: without SMTP the account works at once and the dashboard shows. */
async function signUpWithoutMail(page, portal, email) {
  await page.goto(`${portal.url}/signup`);
  await page.getByRole("button", { name: "Continue with Email" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Email address").fill(email);
  await dialog.getByLabel("Password").fill(PASSWORD);
  await dialog.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("heading", { level: 1, name: "Developer Dashboard" }).waitFor();
}

/** Opens the navigation on a phone (the drawer) and answers it; the sidebar itself on a wide screen. */
async function navigation(page, phone) {
  if (!phone) return page.getByRole("navigation", { name: "Main" });
  await page.getByRole("button", { name: "Open navigation" }).click();
  const drawer = page.locator("#sidebar-drawer");
  await drawer.getByRole("navigation", { name: "Main" }).waitFor();
  return drawer;
}

describe("the first platform admin on default settings", () => {
  for (const width of [1280, 390]) {
    const phone = width < 600;
    test(`follows the README from an empty database to the Admin Panel at ${width} px`, async () => {
      const portal = await defaultPortal(`${width}`);
      const email = `first-admin-${width}@example.com`;
      const context = await servers.browser.newContext({
        viewport: { width, height: phone ? 844 : 900 },
        isMobile: phone,
        hasTouch: phone,
      });
      const page = await context.newPage();
      const failures = [];
      page.on("requestfailed", (request) => failures.push(`${request.url()}: ${request.failure()?.errorText}`));
      const size = { width, height: phone ? 844 : 900, colorScheme: "light" };
      const name = (step) => `firstrun-${phone ? "phone" : "desktop"}-${step}`;

      // "Sign up or sign in to the portal, then open that link in the same browser."
      await signUpWithoutMail(page, portal, email);
      await page.goto(setupLink(portal));
      await page.getByText("You are now a platform admin.").waitFor();
      // The staff API waits for a second factor (PORTAL_STAFF_MFA=required): the page says what to do.
      const step = page.getByRole("alert").filter({ hasText: "Add a second factor to open the Admin Panel" });
      await step.waitFor();
      await lookAtEverySize(page, name("setup-done"), { back: size });

      // The rest of the portal stays open meanwhile: the dashboard, with the same step and the Admin Panel
      // in the navigation, never the dead end of "ask an administrator".
      await page.goto(`${portal.url}/dashboard`);
      await page.getByRole("heading", { level: 1, name: "Developer Dashboard" }).waitFor();
      await step.waitFor();
      assert.equal(await page.getByText(/Ask an administrator/).count(), 0);
      const nav = await navigation(page, phone);
      await nav.getByRole("link", { name: "Admin Panel" }).click();
      await page.getByRole("heading", { level: 1, name: "Admin Panel" }).waitFor();
      await step.waitFor();
      assert.equal(await page.getByRole("tab", { name: "Dashboard" }).count(), 0);
      await lookAtEverySize(page, name("admin-needs-factor"), { back: size });
      const refused = await productCall(page, "GET", "/api/admin/apps/stats");
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, "MFA_REQUIRED");

      // Account Security's enroll flow, which comes back to the Admin Panel.
      await step.getByRole("link", { name: "Add a second factor" }).click();
      await page.getByRole("heading", { level: 1, name: "Account Security" }).waitFor();
      await page.getByText(/then continue to the Admin Panel/).waitFor();
      await page.getByText("No authenticator app yet.").waitFor();
      await lookAtEverySize(page, name("account-security-next"), { back: size });
      await page.getByRole("button", { name: "Add authenticator app" }).click();
      const secret = (await page.getByTestId("totp-secret").textContent()).trim();
      await lookAtEverySize(page, name("enroll"), { back: size });
      const enrolledAt = Date.now() / 1000;
      await page.getByLabel("Code from the app").fill(totpCode(secret, enrolledAt));
      await page.getByRole("button", { name: "Confirm" }).click();
      await page.getByText("Your authenticator app is set up.").waitFor();
      const onward = page.getByRole("alert").filter({ hasText: "Your second factor is set up." });
      await onward.waitFor();
      await lookAtEverySize(page, name("enrolled"), { back: size });
      // The way on stands at the top of the page and next to the section's own message.
      await onward.getByRole("link", { name: "Continue" }).waitFor();
      await page
        .getByRole("region", { name: "Authenticator apps" })
        .getByRole("link", { name: "Continue to the Admin Panel" })
        .click();

      // The confirmed factor raised this session: the Admin Panel opens.
      await page.getByRole("tab", { name: "Platform Users" }).waitFor({ timeout: 15_000 });
      await page.getByRole("heading", { level: 1, name: "Admin Panel" }).waitFor();
      await page.waitForLoadState("networkidle");
      await lookAtEverySize(page, name("admin-panel"), { back: size });
      const allowed = await productCall(page, "GET", "/api/admin/apps/stats");
      assert.equal(allowed.status, 200, JSON.stringify(allowed.body));

      // Signing in again: the password, then the challenge step, then the Admin Panel.
      await fromAccountMenu(page, "Sign Out");
      await page.waitForURL(/\/signin/);
      await page.getByRole("button", { name: "Continue with Email" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByLabel("Email address").fill(email);
      await dialog.getByLabel("Password").fill(PASSWORD);
      await dialog.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.getByRole("heading", { level: 1, name: "Confirm it’s you" }).waitFor();
      await lookAtEverySize(page, name("challenge"), { back: size });
      // The enrollment's code was used: the next step's is accepted (one step of drift).
      await page.getByLabel("Code").fill(totpCode(secret, enrolledAt + 30));
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("heading", { level: 1, name: "Developer Dashboard" }).waitFor();
      assert.equal(await step.count(), 0, "no second-factor step once the session passed one");
      const again = await navigation(page, phone);
      await again.getByRole("link", { name: "Admin Panel" }).click();
      await page.getByRole("tab", { name: "Platform Users" }).waitFor({ timeout: 15_000 });

      // A phone reaches Account Security from the drawer too (and from the account menu of the top bar).
      if (phone) {
        const drawer = await navigation(page, phone);
        await expectNoSeriousA11yViolations(page, "the navigation drawer");
        await screenshot(page, name("drawer"));
        await drawer.getByRole("link", { name: "Account Security" }).click();
        await page.getByRole("heading", { level: 1, name: "Account Security" }).waitFor();
        await page.getByRole("list", { name: "Your authenticator apps" }).waitFor();
      }
      assert.deepEqual(
        failures.filter((f) => !f.includes("net::ERR_ABORTED")),
        [],
        "no request failed (a Content-Security-Policy refusal fails it)",
      );
      await context.close();
    });
  }
});
