// A portal that moves keeps its logos (issue 48 item 1). A newcomer starts the portal on the defaults (no SMTP,
// the address `make run` gives it), uploads the organization's logo on Organization Settings and registers an
// app with an uploaded logo; the operator then gives the portal another address (here `localhost` on another
// port, as a domain would be) and starts it again on the same data. Signed in at the new address, the person
// still sees both logos: each is answered at the new address and loads there.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { screenshot } from "../support/harness.mjs";
import { PASSWORD, newPage, productCall } from "../support/journey.mjs";
import { journeyServers } from "../support/servers.mjs";

// A 1x1 PNG: the smallest logo the server decodes.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const EMAIL = "mover@example.com";
const PACKAGE = "com.acme.moved";

const servers = journeyServers("logos-moved", { smtp: false, portal: false });

/** The organization's logo in the profile card, once the browser has loaded it: its address and width. */
async function shownLogo(page) {
  const logo = page.locator('section[aria-labelledby="org-profile-title"] img').first();
  await logo.waitFor();
  await page.waitForFunction(
    (img) => img.complete && img.naturalWidth > 0,
    await logo.elementHandle(),
  );
  return logo.evaluate((img) => ({ src: img.currentSrc, width: img.naturalWidth }));
}

describe("a portal given another address", () => {
  test("still shows the logos uploaded at its first address", async () => {
    const first = await servers.startPortal("first", { PORTAL_STAFF_MFA: "" });
    const page = await newPage(servers.browser);
    await page.goto(`${first.url}/signup`);
    await page.getByRole("button", { name: "Continue with Email" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Email address").fill(EMAIL);
    await dialog.getByLabel("Password").fill(PASSWORD);
    await dialog.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { level: 1, name: "Developer Dashboard" }).waitFor();

    await page.goto(`${first.url}/org-settings`);
    await page.getByRole("heading", { level: 1, name: "Organization Settings" }).waitFor();
    await page.getByLabel(/Contact email/).fill("team@acme.test");
    await page.getByTestId("image-upload-input").setInputFiles({
      name: "org.png",
      mimeType: "image/png",
      buffer: PNG,
    });
    await page.getByRole("img", { name: /logo preview/ }).waitFor();
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByRole("alert").filter({ hasText: "Organization updated successfully" }).first().waitFor();
    const before = await shownLogo(page);
    assert.ok(before.src.startsWith(`${first.url}/api/images/`), before.src);

    // An app whose logo is an upload of its own, registered through the API the page uses.
    const orgs = await productCall(page, "GET", "/api/orgs");
    const orgId = orgs.body.data[0].id;
    const upload = await page.evaluate(
      async ({ bytes, orgId }) => {
        const form = new FormData();
        form.append("file", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "app.png");
        const response = await fetch("/api/dev/images/upload", {
          method: "POST",
          headers: { Authorization: `Bearer ${localStorage.getItem("coreToken")}`, "x-org-id": orgId },
          body: form,
        });
        return response.json();
      },
      { bytes: [...PNG], orgId },
    );
    const registered = await productCall(
      page,
      "POST",
      "/api/dev/apps/register",
      {
        packageName: PACKAGE,
        name: "Moved",
        description: "Follows the portal",
        publicUrl: "https://moved.acme.test",
        logoURL: upload.url,
        appType: "standard",
      },
      orgId,
    );
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    await page.context().close();
    await first.stop({ keepData: true });

    // The same data at another address.
    const moved = await servers.startPortal(
      "moved",
      { PORTAL_STAFF_MFA: "" },
      { host: "localhost", dataDir: first.dataDir },
    );
    assert.notEqual(new URL(moved.url).origin, new URL(first.url).origin);
    const again = await newPage(servers.browser);
    await again.goto(`${moved.url}/signin`);
    await again.getByRole("button", { name: "Continue with Email" }).click();
    const signIn = again.getByRole("dialog");
    await signIn.getByLabel("Email address").fill(EMAIL);
    await signIn.getByLabel("Password").fill(PASSWORD);
    await signIn.getByRole("button", { name: "Sign in", exact: true }).click();
    await again.getByRole("heading", { level: 1, name: "Developer Dashboard" }).waitFor();

    await again.goto(`${moved.url}/org-settings`);
    await again.getByRole("heading", { level: 1, name: "Organization Settings" }).waitFor();
    const after = await shownLogo(again);
    assert.ok(after.src.startsWith(`${moved.url}/api/images/`), after.src);
    assert.equal(new URL(after.src).pathname, new URL(before.src).pathname);
    assert.equal(after.width, 1);
    await screenshot(again, "logos-moved-org-settings");

    const app = await productCall(again, "GET", `/api/dev/apps/${PACKAGE}`, undefined, orgId);
    assert.equal(app.status, 200, JSON.stringify(app.body));
    assert.equal(app.body.logoURL, `${moved.url}${new URL(upload.url).pathname}`);
    const image = await fetch(app.body.logoURL);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get("content-type"), "image/png");
  });
});
