// Admin Panel journeys in a real Chromium against a real portal (spec §2 Admin Panel, §8; PRODUCT.md §4-§5):
// a developer without a platform role is sent from /admin to /dashboard; the first platform admin (from
// PORTAL_ADMIN_EMAILS) sees the counts and the submissions, rejects one with notes and approves another,
// adds a reviewer and cannot remove the last admin; the reviewer sees the panel without Platform Users;
// an accessibility scan of each screen.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { screenshot, sqliteRun } from "../support/harness.mjs";
import {
  expectNoSeriousA11yViolations as scan,
  newPage as pageIn,
  productCall as call,
  signUp as signUpIn,
} from "../support/journey.mjs";
import { journeyServers } from "../support/servers.mjs";

const ADMIN = "admin@example.com";
const DEVELOPER = "dev@example.com";
const REVIEWER = "rev@example.com";

const servers = journeyServers("admin", { env: { PORTAL_ADMIN_EMAILS: ADMIN } });

const newPage = () => pageIn(servers.browser);
const signUp = (page, email) => signUpIn(page, servers, email);

/** The shared scan, once every dialog is fully opaque too (their fade-in is not only a CSS transition). */
async function expectNoSeriousA11yViolations(page, screen) {
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[role="dialog"]')].every((dialog) => {
      for (let e = dialog; e; e = e.parentElement)
        if (getComputedStyle(e).opacity !== "1") return false;
      return true;
    }),
  );
  await scan(page, screen);
}

/** Registers an app in `orgId` through the apps API and submits it for review, as its developer. */
async function submitApp(page, orgId, packageName, name, description) {
  const registered = await call(
    page,
    "POST",
    "/api/dev/apps/register",
    {
      packageName,
      name,
      description,
      publicUrl: "https://notes.acme.test",
      logoURL: "https://cdn.acme.test/notes.png",
      appType: "standard",
    },
    orgId,
  );
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  const published = await call(
    page,
    "POST",
    `/api/dev/apps/${packageName}/publish`,
    undefined,
    orgId,
  );
  assert.equal(published.status, 200, JSON.stringify(published.body));
}

/**
 * A SUBMITTED app of `orgId` stored without a description, as an app stored before descriptions were
 * required is (the apps API refuses to write one), so that the review dialog's "No description provided"
 * shows; written as the server's own tests write one (adapter_db::testing::insert_app).
 */
function insertSubmittedApp(
  orgId,
  developerId,
  packageName,
  name,
  description,
) {
  const at = Date.now();
  const changed = sqliteRun(
    servers.portal.databasePath,
    `INSERT INTO apps (package_name, org_id, developer_id, name, description, onboarding_instructions,
       public_url, logo_url, is_public, app_store_status, app_type, created_at, updated_at, tools, settings,
       hardware_requirements, permissions, shared_with_organization, shared_with_emails)
     VALUES (?, ?, ?, ?, ?, '', 'https://example.com', '', 0, 'SUBMITTED', 'standard', ?, ?, '[]', '[]', '[]',
       '[]', 0, '[]')`,
    [packageName, orgId, developerId, name, description, at, at],
  );
  assert.equal(changed, 1);
}

describe("admin panel journeys", () => {
  test("a developer on /admin lands on /dashboard; the admin reviews; a reviewer joins", async () => {
    // The developer: no platform role, the browser sends them back to the dashboard.
    const dev = await newPage();
    await signUp(dev, DEVELOPER);
    assert.equal(
      await dev.getByRole("link", { name: "Admin Panel" }).count(),
      0,
    );
    await dev.goto(`${servers.portal.url}/admin`);
    await dev
      .getByRole("heading", { level: 1, name: "Developer Dashboard" })
      .waitFor();
    assert.equal(new URL(dev.url()).pathname, "/dashboard");
    // The server says no as well.
    assert.equal((await call(dev, "GET", "/api/admin/apps/stats")).status, 403);

    // Two submissions of the developer's organization.
    const me = await call(dev, "GET", "/api/dev/auth/me");
    assert.equal(me.status, 200, JSON.stringify(me.body));
    const orgs = await call(dev, "GET", "/api/orgs");
    assert.equal(orgs.status, 200, JSON.stringify(orgs.body));
    const org = orgs.body.data[0];
    const developerId = me.body.id ?? me.body.user?.id;
    assert.ok(developerId, `a user id in ${JSON.stringify(me.body)}`);
    const profile = await call(dev, "PUT", `/api/orgs/${org.id}`, {
      name: org.name,
      profile: { contactEmail: DEVELOPER },
    });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    await submitApp(
      dev,
      org.id,
      "com.acme.notes",
      "Acme Notes",
      "Notes on your glasses",
    );
    insertSubmittedApp(org.id, developerId, "com.acme.maps", "Acme Maps", "");

    // The first platform admin, from PORTAL_ADMIN_EMAILS.
    const admin = await newPage();
    await signUp(admin, ADMIN);
    await admin.getByRole("link", { name: "Admin Panel" }).click();
    await admin
      .getByRole("heading", { level: 1, name: "Admin Panel" })
      .waitFor();
    const pending = admin.getByRole("region", { name: "Pending Review" });
    await pending.getByText("2", { exact: true }).waitFor();
    await admin
      .getByRole("region", { name: "Total Apps" })
      .getByText("2", { exact: true })
      .waitFor();
    const recent = admin.getByRole("list", { name: "Recent Submissions" });
    await recent.getByText("Acme Notes").waitFor();
    await recent.getByText("com.acme.maps").waitFor();
    await screenshot(admin, "admin-dashboard");
    await expectNoSeriousA11yViolations(admin, "admin dashboard");

    // By keyboard: the arrow keys move along the tabs, Enter opens one; Escape closes the review dialog.
    await admin.getByRole("tab", { name: "Dashboard" }).focus();
    await admin.keyboard.press("ArrowRight");
    await admin.keyboard.press("Enter");
    await admin
      .getByRole("tab", { name: "App Submissions", selected: true })
      .waitFor();
    const table = admin.getByRole("table", { name: "App submissions" });
    await table.getByText("Acme Notes").waitFor();
    await table.getByText("com.acme.maps").waitFor();
    await screenshot(admin, "admin-submissions");
    await expectNoSeriousA11yViolations(admin, "app submissions");
    await table.getByRole("button", { name: "Review Acme Notes" }).focus();
    await admin.keyboard.press("Enter");
    await admin
      .getByRole("dialog", { name: "Review App Submission" })
      .getByText("Notes on your glasses")
      .waitFor();
    await admin.keyboard.press("Escape");
    await admin
      .getByRole("dialog", { name: "Review App Submission" })
      .waitFor({ state: "detached" });

    // Reject Acme Maps with notes.
    await table.getByRole("button", { name: "Review Acme Maps" }).click();
    let dialog = admin.getByRole("dialog", { name: "Review App Submission" });
    await dialog.getByText("No description provided").waitFor();
    await dialog.getByText(org.name).waitFor();
    assert.equal(
      await dialog.getByRole("button", { name: "Reject" }).isDisabled(),
      true,
    );
    await dialog.getByLabel("Review Notes").fill("The logo is missing.");
    await screenshot(admin, "admin-review-dialog");
    await expectNoSeriousA11yViolations(admin, "review dialog");
    await dialog.getByRole("button", { name: "Reject" }).click();
    await admin
      .getByText("App rejected. Developer has been notified.")
      .waitFor();
    await dialog.waitFor({ state: "detached" });
    await table.getByText("Acme Maps").waitFor({ state: "detached" });

    // Approve Acme Notes.
    await table.getByRole("button", { name: "Review Acme Notes" }).click();
    dialog = admin.getByRole("dialog", { name: "Review App Submission" });
    await dialog.getByText("Notes on your glasses").waitFor();
    // The developer changes the app while the admin looks at it: the decision is refused and the app
    // reloaded (PRODUCT.md §4).
    const changed = await call(
      dev,
      "PUT",
      "/api/dev/apps/com.acme.notes",
      { description: "Notes, now with reminders" },
      org.id,
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    await dialog.getByRole("button", { name: "Approve" }).click();
    await dialog.getByText(/The app changed since you opened it/).waitFor();
    await dialog.getByText("Notes, now with reminders").waitFor();
    await screenshot(admin, "admin-review-changed");
    await dialog.getByRole("button", { name: "Approve" }).click();
    await admin.getByText("App approved successfully!").waitFor();
    await dialog.waitFor({ state: "detached" });
    await admin.getByText("No pending submissions").waitFor();

    // The decisions are stored, the notes with the rejection.
    const rejected = await call(admin, "GET", "/api/admin/apps/com.acme.maps");
    assert.equal(rejected.body.appStoreStatus, "REJECTED");
    assert.equal(rejected.body.reviewNotes, "The logo is missing.");
    const approved = await call(admin, "GET", "/api/admin/apps/com.acme.notes");
    assert.equal(approved.body.appStoreStatus, "PUBLISHED");

    await admin.getByRole("tab", { name: "Dashboard" }).click();
    await admin
      .getByRole("region", { name: "Published" })
      .getByText("1", { exact: true })
      .waitFor();
    await admin
      .getByRole("region", { name: "Rejected" })
      .getByText("1", { exact: true })
      .waitFor();
    await pending.getByText("0", { exact: true }).waitFor();
    await admin.getByText("No pending submissions").waitFor();

    // App Status lists the monitored apps (the monitor is off here: the uptime journey checks the figures).
    await admin.getByRole("tab", { name: "App Status" }).click();
    await admin.getByText(/Days are UTC days/).waitFor();
    await screenshot(admin, "admin-app-status");
    await expectNoSeriousA11yViolations(admin, "app status");

    // Platform users: add a reviewer; the last admin stays.
    await admin.getByRole("tab", { name: "Platform Users" }).click();
    const users = admin.getByRole("table", { name: "Platform users" });
    await users.getByText(`${ADMIN} (you)`).waitFor();
    await admin.getByRole("textbox", { name: "Email" }).fill("not an address");
    await admin.getByRole("button", { name: "Add User" }).click();
    await admin.getByText("Please enter a valid email address").waitFor();
    await admin.getByRole("textbox", { name: "Email" }).fill(REVIEWER);
    await admin.getByRole("button", { name: "Add User" }).click();
    await users.getByText(REVIEWER).waitFor();
    await users
      .getByRole("row", { name: new RegExp(REVIEWER) })
      .getByText("Reviewer")
      .waitFor();
    await screenshot(admin, "admin-platform-users");
    await expectNoSeriousA11yViolations(admin, "platform users");

    await users.getByRole("button", { name: `Remove ${ADMIN}` }).click();
    const confirm = admin.getByRole("dialog", { name: "Remove platform user" });
    await confirm.getByText(new RegExp(ADMIN)).waitFor();
    await expectNoSeriousA11yViolations(admin, "remove confirmation");
    await confirm.getByRole("button", { name: "Remove" }).click();
    await confirm.getByRole("alert").waitFor();
    const refusal = await confirm.getByRole("alert").textContent();
    assert.match(refusal, /admin/i, "the server says why the last admin stays");
    await screenshot(admin, "admin-last-admin");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await users.getByText(`${ADMIN} (you)`).waitFor();

    // The reviewer signs up: the panel without Platform Users.
    const reviewer = await newPage();
    await signUp(reviewer, REVIEWER);
    await reviewer.getByRole("link", { name: "Admin Panel" }).click();
    await reviewer
      .getByRole("heading", { level: 1, name: "Admin Panel" })
      .waitFor();
    await reviewer.getByRole("tab", { name: "App Submissions" }).waitFor();
    assert.equal(
      await reviewer.getByRole("tab", { name: "Platform Users" }).count(),
      0,
    );
    await reviewer
      .getByRole("region", { name: "Published" })
      .getByText("1", { exact: true })
      .waitFor();
    await screenshot(reviewer, "admin-reviewer");
    await expectNoSeriousA11yViolations(reviewer, "admin dashboard (reviewer)");

    // A phone-sized screen: the tabs scroll, the cards stack.
    await reviewer.setViewportSize({ width: 390, height: 844 });
    await reviewer.getByRole("tab", { name: "App Submissions" }).click();
    await reviewer.getByText("No pending submissions").waitFor();
    await reviewer.getByRole("tab", { name: "Dashboard" }).click();
    await reviewer.getByRole("region", { name: "Pending Review" }).waitFor();
    await screenshot(reviewer, "admin-reviewer-phone");
    await expectNoSeriousA11yViolations(reviewer, "admin dashboard (phone)");
  });
});
