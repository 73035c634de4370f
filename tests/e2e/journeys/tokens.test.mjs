// Access Tokens in a real Chromium (issue 37): a new account opens Access Tokens from the top bar's account menu
// (issue 48, item 10), creates a token, sees it once and copies it, uses it against the product API (200), revokes
// it and sees the same call refused (401, "revoked"); on a phone the account menu and the drawer lead there too,
// and Organization Settings shows the organization's admin
// the token with its owner. Each screen is scanned with axe and photographed at 1280 and 390 px, light and dark
// (tests/e2e/output/tokens-*.png).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { screenshot, settled } from "../support/harness.mjs";
import {
  expectNoSeriousA11yViolations,
  lookAtEverySize,
  newPage,
  openAccountMenu,
  productCall,
  signUp,
} from "../support/journey.mjs";
import { journeyServers } from "../support/servers.mjs";

const EMAIL = "tokens@example.com";
const NAME = "Journey CI";

const servers = journeyServers("tokens");

/** `GET /api/dev/apps` with the access token as the bearer: `{status, body}`. */
async function appsWithToken(page, token, orgId) {
  return page.evaluate(
    async ({ token, orgId }) => {
      const response = await fetch("/api/dev/apps", {
        headers: { Authorization: `Bearer ${token}`, "x-org-id": orgId },
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    { token, orgId },
  );
}

describe("access tokens", () => {
  test("create a token, see it once, copy it, use it, revoke it: it is refused", async () => {
    const page = await newPage(servers.browser, { clipboard: true });
    await signUp(page, servers, EMAIL);
    const orgs = await productCall(page, "GET", "/api/orgs");
    assert.equal(orgs.status, 200);
    const orgId = orgs.body.data[0].id;
    const orgName = orgs.body.data[0].name;

    // The account menu: the signed-in address, Account Security, Access Tokens, Sign Out.
    const menu = await openAccountMenu(page);
    await menu.getByRole("menuitem", { name: "Sign Out", exact: true }).waitFor();
    const described = await menu.evaluate(
      (list) => document.getElementById(list.getAttribute("aria-describedby"))?.textContent,
    );
    assert.equal(described, `Signed in as${EMAIL}`, "the menu is described by the signed-in address");
    await settled(page);
    await expectNoSeriousA11yViolations(page, "the account menu");
    await screenshot(page, "tokens-account-menu-1280");
    await menu.getByRole("menuitem", { name: "Access Tokens", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Access Tokens" }).waitFor();
    await page.getByRole("heading", { name: "No access tokens yet" }).waitFor();
    await settled(page);
    await lookAtEverySize(page, "tokens-empty");

    await page.getByRole("button", { name: "Create token" }).click();
    const form = page.getByRole("dialog", { name: "Create access token" });
    await form.waitFor();
    // Nothing named, no request: the field says why.
    await form.getByRole("button", { name: "Create token" }).click();
    await form.getByText("Name the token after what will use it.").waitFor();
    await form.getByRole("textbox", { name: "Name" }).fill(NAME);
    assert.equal(await form.getByRole("combobox", { name: "Organization" }).textContent(), orgName);
    assert.match(await form.getByRole("combobox", { name: "Expires after" }).textContent(), /^90 days/);
    await form.getByRole("checkbox", { name: /apps:publish/ }).check();
    await settled(page);
    await lookAtEverySize(page, "tokens-create");

    await form.getByRole("button", { name: "Create token" }).click();
    const shown = page.getByRole("dialog", { name: "Your new access token" });
    await shown.waitFor();
    await shown.getByText("Copy it now: it will not be shown again").waitFor();
    const token = await shown.getByTestId("new-token").inputValue();
    assert.match(token, /^dpt_/);
    await shown.getByText(`x-org-id: ${orgId}`).waitFor();
    await shown.getByRole("button", { name: "Copy token" }).click();
    await shown.getByText("Copied to the clipboard.").waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
    await settled(page);
    await lookAtEverySize(page, "tokens-shown");

    // The token works where a token may act.
    const used = await appsWithToken(page, token, orgId);
    assert.equal(used.status, 200, JSON.stringify(used.body));
    assert.deepEqual(used.body, []);

    await shown.getByRole("button", { name: "Done" }).click();
    await shown.waitFor({ state: "detached" });
    assert.equal(await page.getByTestId("new-token").count(), 0, "shown once");
    assert.equal(await page.getByText(token).count(), 0, "shown once");

    // Read again, the list tells its last use and the address it came from.
    await page.reload();
    const table = page.getByRole("table", { name: "Your access tokens" });
    const row = table.getByRole("row").filter({ hasText: NAME });
    await row.getByText(/ from /).waitFor();
    await row.getByText("Active", { exact: true }).waitFor();
    await row.getByText(/expires in (89|90) days/).waitFor();
    await row.getByText(orgName).waitFor();
    await settled(page);
    await lookAtEverySize(page, "tokens-list");

    await row.getByRole("button", { name: `Revoke ${NAME}` }).click();
    const confirm = page.getByRole("dialog", { name: "Revoke this access token?" });
    await confirm.waitFor();
    await settled(page);
    await lookAtEverySize(page, "tokens-revoke-confirm");
    await confirm.getByRole("button", { name: "Revoke" }).click();
    await page.getByText(`“${NAME}” was revoked: it no longer works.`).waitFor();
    await row.getByText("Revoked", { exact: true }).waitFor();
    assert.equal(await row.getByRole("button", { name: `Revoke ${NAME}` }).count(), 0);

    const refused = await appsWithToken(page, token, orgId);
    assert.equal(refused.status, 401);
    assert.match(refused.body.error, /revoked/);
    await settled(page);
    await lookAtEverySize(page, "tokens-revoked");

    // The organization's admin (its creator) sees the token, revoked, with its owner.
    await page.goto(`${servers.portal.url}/org-settings`);
    const section = page.getByRole("region", { name: "Access tokens acting in this organization" });
    await section.getByText(EMAIL).waitFor();
    await section.getByText(NAME).waitFor();
    await section.getByText("Revoked", { exact: true }).waitFor();
    await settled(page);
    await lookAtEverySize(page, "tokens-org-settings");
  });

  test("on a phone the account menu and the drawer lead to Access Tokens", async () => {
    const page = await newPage(servers.browser);
    await page.setViewportSize({ width: 390, height: 844 });
    await signUp(page, servers, "tokens-phone@example.com");
    // The top bar keeps its account menu on a phone.
    const menu = await openAccountMenu(page);
    await menu.getByRole("menuitem", { name: "Sign Out", exact: true }).waitFor();
    await settled(page);
    await expectNoSeriousA11yViolations(page, "the account menu on a phone");
    await screenshot(page, "tokens-account-menu-390");
    await menu.getByRole("menuitem", { name: "Access Tokens", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Access Tokens" }).waitFor();
    await page.getByRole("heading", { name: "No access tokens yet" }).waitFor();

    await page.goto(`${servers.portal.url}/dashboard`);
    await page.getByRole("button", { name: "Open navigation" }).click();
    const drawer = page.getByRole("dialog", { name: "Navigation" });
    await drawer.getByRole("link", { name: "Access Tokens" }).click();
    await page.getByRole("heading", { level: 1, name: "Access Tokens" }).waitFor();
    await page.getByRole("heading", { name: "No access tokens yet" }).waitFor();
  });
});
