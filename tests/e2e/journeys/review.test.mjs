// The review loop in a real Chromium against a real portal sending real e-mail (issue "Review and the admin
// panel"; spec §2, §4, §8; PRODUCT.md §4): a developer publishes an app, a platform admin rejects it with
// notes, the developer reads the reason in the apps table and on the edit page and resubmits, the admin
// approves it and it is Published; each decision e-mails the organization's contact.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { screenshot } from "../support/harness.mjs";
import {
  expectNoSeriousA11yViolations,
  lookAtEverySize,
  newPage as pageIn,
  productCall as call,
  signUp as signUpIn,
} from "../support/journey.mjs";
import { journeyServers } from "../support/servers.mjs";

const ADMIN = "boss@example.com";
const DEVELOPER = "grace@example.com";
const CONTACT = "team@lenses.test";
const NOTES = "The onboarding instructions must say how to pair the glasses.";

const servers = journeyServers("review", { env: { PORTAL_ADMIN_EMAILS: ADMIN } });

const newPage = () => pageIn(servers.browser);
const signUp = (page, email) => signUpIn(page, servers, email);

async function rowAction(page, appName, action) {
  await page.getByRole("button", { name: `Actions for ${appName}` }).click();
  await page.getByRole("menuitem", { name: action }).click();
}

/**
 * Opens the review dialog of `appName` from the App Submissions tab and decides; `look` sees the open
 * dialog first.
 */
async function decide(admin, appName, decision, notes, look) {
  await admin.goto(`${servers.portal.url}/admin`);
  await admin.getByRole("heading", { level: 1, name: "Admin Panel" }).waitFor();
  await admin.getByRole("tab", { name: "App Submissions" }).click();
  const table = admin.getByRole("table", { name: "App submissions" });
  await table.getByRole("button", { name: `Review ${appName}` }).click();
  const dialog = admin.getByRole("dialog", { name: "Review App Submission" });
  await dialog.getByText(appName).first().waitFor();
  if (look) await look(dialog);
  if (notes) await dialog.getByLabel("Review Notes").fill(notes);
  await dialog.getByRole("button", { name: decision }).click();
  await dialog.waitFor({ state: "detached" });
}

describe("review loop", () => {
  test("published, rejected with notes, resubmitted, approved", async () => {
    const grace = await newPage();
    await signUp(grace, DEVELOPER);
    const orgs = await call(grace, "GET", "/api/orgs");
    const org = orgs.body.data[0];
    // The organization's profile is complete (publishing needs its contact e-mail).
    const profile = await call(grace, "PUT", `/api/orgs/${org.id}`, {
      name: "Lens Labs",
      profile: { contactEmail: CONTACT },
    });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    const registered = await call(
      grace,
      "POST",
      "/api/dev/apps/register",
      {
        packageName: "com.lenslabs.captions",
        name: "Live Captions",
        description: "Captions of the conversation around you",
        publicUrl: "https://captions.lenslabs.test",
        logoURL: "https://cdn.lenslabs.test/captions.png",
        appType: "standard",
        permissions: [
          { type: "MICROPHONE", description: "Hears the conversation" },
          { type: "LOCATION", description: "Names the room" },
        ],
      },
      org.id,
    );
    assert.equal(registered.status, 201, JSON.stringify(registered.body));

    // The developer submits it from My Apps.
    await grace.goto(`${servers.portal.url}/apps`);
    const row = grace.getByRole("row", { name: /Live Captions/ });
    await row.getByText("Development").waitFor();
    await rowAction(grace, "Live Captions", "Publish to App Store");
    const publish = grace.getByRole("dialog", { name: "Publish to App Store" });
    await publish.getByRole("button", { name: "Submit for Review" }).click();
    await grace.getByText("App submitted for publication!").waitFor();
    await row.getByText("Submitted").waitFor();

    // The platform admin rejects it with notes.
    const boss = await newPage();
    await signUp(boss, ADMIN);
    await decide(boss, "Live Captions", "Reject", NOTES);
    await boss
      .getByText("App rejected. Developer has been notified.")
      .waitFor();
    const rejection = await servers.smtp.mailTo(CONTACT);
    assert.match(rejection.message, /Live Captions/);
    assert.match(rejection.message, /pair the glasses/);

    // The developer sees the reason in the table (tooltip) and on the edit page, and resubmits.
    await grace.reload();
    await row.getByText("Rejected").waitFor();
    const reason = row.getByRole("link", { name: "View Rejection Reason" });
    await reason.hover();
    await grace.getByRole("tooltip").getByText(NOTES).waitFor();
    await screenshot(grace, "review-rejected-tooltip");
    await expectNoSeriousA11yViolations(grace, "apps table (rejected)");
    await reason.click();
    await grace.waitForURL(/\/apps\/com\.lenslabs\.captions\/edit$/);
    await grace.getByText(NOTES).first().waitFor();
    await screenshot(grace, "review-rejected-edit");
    // Before resubmitting, the developer rewrites the description and trades Location for the camera.
    const current = await call(grace, "GET", "/api/dev/apps/com.lenslabs.captions", null, org.id);
    assert.equal(current.status, 200, JSON.stringify(current.body));
    const app = current.body.data ?? current.body;
    const edited = await call(
      grace,
      "PUT",
      "/api/dev/apps/com.lenslabs.captions",
      {
        name: app.name,
        description: "Captions of the conversation, with speaker names",
        onboardingInstructions: "Pair the glasses in the Mentra app, then open Live Captions.",
        publicUrl: app.publicUrl,
        logoURL: app.logoURL,
        webviewURL: app.webviewURL,
        appType: app.appType,
        settings: app.settings,
        tools: app.tools,
        hardwareRequirements: app.hardwareRequirements,
      },
      org.id,
    );
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    const permissions = await call(
      grace,
      "PATCH",
      "/api/permissions/com.lenslabs.captions",
      {
        permissions: [
          { type: "MICROPHONE", description: "Hears the conversation" },
          { type: "CAMERA", description: "Reads the speaker's lips" },
        ],
      },
      org.id,
    );
    assert.equal(permissions.status, 200, JSON.stringify(permissions.body));
    await grace.goto(`${servers.portal.url}/apps`);
    await rowAction(grace, "Live Captions", "Resubmit to App Store");
    const resubmit = grace.getByRole("dialog", {
      name: "Resubmit to App Store",
    });
    await resubmit.getByRole("button", { name: "Resubmit" }).click();
    await grace.getByText("App submitted for publication!").waitFor();
    await row.getByText("Submitted").waitFor();

    // The admin approves it: Published, and the contact hears of it.
    // The review dialog says what changed since the rejection: old → new, permissions marked (issue 35,
    // item 8), at both widths, light and dark.
    await decide(boss, "Live Captions", "Approve", undefined, async (dialog) => {
      await dialog.getByText("Changed: Description, Onboarding instructions, Permissions").waitFor();
      const description = dialog.getByRole("group", { name: "Description changes" });
      await description.locator("del", { hasText: "Captions of the conversation around you" }).waitFor();
      await description.locator("ins", { hasText: "Captions of the conversation, with speaker names" }).waitFor();
      const changed = dialog.getByRole("group", { name: "Permissions changes" });
      const rows = await changed.getByRole("listitem").allTextContents();
      assert.deepEqual(rows, ["AddedCamera: Reads the speaker's lips", "RemovedLocation: Names the room"]);
      await lookAtEverySize(boss, "review-dialog-changes");
    });
    await boss.getByText("App approved successfully!").waitFor();
    await boss.getByRole("tab", { name: "Dashboard" }).click();
    await boss
      .getByRole("region", { name: "Published" })
      .getByText("1", { exact: true })
      .waitFor();
    const approval = await servers.smtp.mailTo(CONTACT, 2);
    assert.match(approval.message, /Live Captions/);

    await grace.reload();
    await row.getByText("Published").waitFor();
    await screenshot(grace, "review-published");
    // The history tells the whole story, oldest first.
    const history = await call(
      grace,
      "GET",
      "/api/dev/apps/com.lenslabs.captions/history",
      null,
      org.id,
    );
    assert.equal(history.status, 200, JSON.stringify(history.body));
    const kinds = history.body.map((event) => event.kind);
    assert.deepEqual(
      kinds.filter((k) => ["submitted", "rejected", "approved"].includes(k)),
      ["submitted", "rejected", "submitted", "approved"],
      JSON.stringify(kinds),
    );
  });
});
