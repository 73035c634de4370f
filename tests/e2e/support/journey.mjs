// What every browser journey does the same way: a fresh browser context, signing up through the dialog and
// the confirmation e-mail, an accessibility scan of what the person ends up seeing, and a product API call
// made from the page with the core token it keeps.
import assert from "node:assert/strict";

import { screenshot, seriousA11yViolations } from "./harness.mjs";

/** The password every journey's accounts use. */
export const PASSWORD = "glasses are the next screen 42";

/**
 * A page in a fresh browser context (its own storage), 1280×900. `enforceCsp` keeps the page's
 * Content-Security-Policy in force, as a person's browser does (the journeys of calls the policy could
 * block need it).
 */
export async function newPage(browser, { clipboard = false, enforceCsp = false } = {}) {
  const context = await browser.newContext({
    bypassCSP: !enforceCsp,
    viewport: { width: 1280, height: 900 },
    ...(clipboard
      ? { permissions: ["clipboard-read", "clipboard-write"] }
      : {}),
  });
  return context.newPage();
}

/** Fails on any serious or critical axe-core violation of the page once it is still. */
export async function expectNoSeriousA11yViolations(page, screen) {
  const violations = await seriousA11yViolations(page);
  assert.deepEqual(violations, [], `${screen}: accessibility violations`);
}

/** Signs up through the dialog, follows the confirmation e-mail and waits for the dashboard. */
export async function signUp(page, { portal, smtp }, email) {
  await page.goto(`${portal.url}/signup`);
  await page.getByRole("button", { name: "Continue with Email" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Email address").fill(email);
  await dialog.getByLabel("Password").fill(PASSWORD);
  await dialog.getByRole("button", { name: "Create account" }).click();
  await dialog
    .getByText("Account created! Check your email for confirmation.")
    .waitFor();
  const mail = await smtp.mailTo(email);
  assert.ok(mail.link, `a confirmation link in: ${mail.message}`);
  await page.goto(mail.link);
  await page
    .getByRole("heading", { level: 1, name: "Developer Dashboard" })
    .waitFor();
}

/**
 * Opens the account menu of the top bar (the avatar button named "Account menu") and answers the menu: it
 * holds the signed-in e-mail, Account Security, Access Tokens and Sign Out.
 */
export async function openAccountMenu(page) {
  await page.getByRole("banner").getByRole("button", { name: "Account menu" }).click();
  const menu = page.getByRole("menu", { name: "Account menu" });
  await menu.waitFor();
  return menu;
}

/** Follows `name` ("Account Security", "Access Tokens" or "Sign Out") in the top bar's account menu. */
export async function fromAccountMenu(page, name) {
  const menu = await openAccountMenu(page);
  await menu.getByRole("menuitem", { name, exact: true }).click();
}

/** A product API call from the page with its core token (and `x-org-id` when given): `{status, body}`. */
export async function productCall(page, method, path, body, orgId) {
  return page.evaluate(
    async ({ method, path, body, orgId }) => {
      const response = await fetch(path, {
        method,
        headers: {
          Authorization: `Bearer ${localStorage.getItem("coreToken")}`,
          ...(orgId ? { "x-org-id": orgId } : {}),
          ...(body ? { "Content-Type": "application/json" } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    { method, path, body, orgId },
  );
}

/** The screen sizes and colour schemes every screen of the first-run journeys is looked at in. */
export const LOOKS = [
  { width: 1280, height: 900, colorScheme: "light" },
  { width: 1280, height: 900, colorScheme: "dark" },
  { width: 390, height: 844, colorScheme: "light" },
  { width: 390, height: 844, colorScheme: "dark" },
];

/**
 * Looks at the page's screen as it is now at 1280 and 390 px, light and dark: no serious accessibility
 * violation, nothing wider than the screen, a screenshot each (`<name>-<width>-<scheme>.png`). The page is
 * left at `size` (its own size and scheme unless given).
 */
export async function lookAtEverySize(page, name, { back } = {}) {
  const before = back ?? { ...page.viewportSize(), colorScheme: "light" };
  for (const look of LOOKS) {
    await page.setViewportSize({ width: look.width, height: look.height });
    await page.emulateMedia({ colorScheme: look.colorScheme });
    // The change restyles the page on its next frames (colour transitions start then): the stillness that
    // the scan waits for is measured from after them, not from the scan before.
    await page.evaluate(
      () =>
        new Promise((done) => {
          window.__stillSince = undefined;
          requestAnimationFrame(() => requestAnimationFrame(done));
        }),
    );
    const label = `${name} at ${look.width} px, ${look.colorScheme}`;
    await expectNoSeriousA11yViolations(page, label);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.equal(overflow, 0, `${label}: nothing is wider than the screen`);
    await screenshot(page, `${name}-${look.width}-${look.colorScheme}`);
  }
  await page.setViewportSize({ width: before.width, height: before.height });
  await page.emulateMedia({ colorScheme: before.colorScheme });
}
