// What every browser journey does the same way: a fresh browser context, signing up through the dialog and
// the confirmation e-mail, an accessibility scan of what the person ends up seeing, and a product API call
// made from the page with the core token it keeps.
import assert from "node:assert/strict";

import { seriousA11yViolations } from "./harness.mjs";

/** The password every journey's accounts use. */
export const PASSWORD = "glasses are the next screen 42";

/** A page in a fresh browser context (its own storage), 1280×900. */
export async function newPage(browser, { clipboard = false } = {}) {
  const context = await browser.newContext({
    bypassCSP: true,
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
