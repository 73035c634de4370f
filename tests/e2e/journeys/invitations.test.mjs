// Invitation links, the two-factor notice and the audit log's names (issue 35, items 4, 5 and 7), in a real
// Chromium against a real portal: an invalid link says so before anyone signs up; an open link names the
// organization, who invited and a hint of the address; a colleague who joins an organization that requires
// two-factor authentication keeps the welcome, is offered a factor and Leave (and switching only with
// another organization) and leaves; the admin's audit log names its targets (the app, the member), a
// deleted app included, as a grid at 1280 px and cards at 390 px. Each screen at 1280 and 390 px, light
// and dark, with axe.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { sqliteRun } from "../support/harness.mjs";
import {
  PASSWORD,
  lookAtEverySize,
  newPage as pageIn,
  productCall as call,
  signUp as signUpIn,
} from "../support/journey.mjs";
import { journeyServers } from "../support/servers.mjs";

const ADA = "ada.invites@example.com";
const BOB = "bob.joins@example.com";
const PACKAGE = "com.acme.invited.weather";

const servers = journeyServers("invitations");

const newPage = () => pageIn(servers.browser);

describe("invitation links, the two-factor notice and the audit log's names", () => {
  test("an invalid invitation link says so before sign-up", async () => {
    const page = await newPage();
    await page.goto(`${servers.portal.url}/invite/accept?token=${"x".repeat(43)}`);
    await page.getByRole("heading", { level: 1, name: "Welcome" }).waitFor();
    const alert = page
      .getByRole("alert")
      .filter({ hasText: "This invitation link is invalid" });
    await alert.waitFor();
    assert.match(
      await alert.textContent(),
      /ask an admin of the organization to invite you again/,
    );
    assert.equal(await page.getByText(/You have been invited/).count(), 0);
    await lookAtEverySize(page, "invite-invalid");
    await page.context().close();
  });

  test("a colleague joins an organization that requires two-factor authentication, keeps the welcome and leaves; the audit log names its targets", async () => {
    const ada = await newPage();
    await signUpIn(ada, servers, ADA);
    const orgs = await call(ada, "GET", "/api/orgs");
    const org = orgs.body.data[0];
    const renamed = await call(ada, "PUT", `/api/orgs/${org.id}`, {
      name: "Acme Optics",
      profile: { contactEmail: "team@acme-optics.test" },
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));

    // Ada invites Bob; the link names the organization, Ada and a hint of Bob's address.
    const invited = await call(ada, "POST", `/api/orgs/${org.id}/members`, {
      email: BOB,
      role: "member",
    });
    assert.ok(
      [200, 201].includes(invited.status),
      JSON.stringify(invited.body),
    );
    const invitation = await servers.smtp.mailTo(BOB);
    const bob = await newPage();
    await bob.goto(invitation.link);
    await bob.getByText("You have been invited to Acme Optics").waitFor();
    await bob.getByText(`${ADA} invited you.`).waitFor();
    await bob.getByText("b\u2022\u2022\u2022@example.com").waitFor();
    await lookAtEverySize(bob, "invite-open");

    // The organization requires two-factor authentication (set in the store: Ada would need a factor of
    // her own to switch it on, which the MFA journey covers).
    assert.equal(
      sqliteRun(
        servers.portal.databasePath,
        "UPDATE organizations SET require_two_factor = 1 WHERE id = ?",
        [org.id],
      ),
      1,
    );

    // Bob signs up from the link and confirms: the welcome stays above the two-factor notice.
    await bob.getByRole("button", { name: "Continue with Email" }).click();
    const dialog = bob.getByRole("dialog");
    await dialog
      .getByRole("button", { name: /Sign up|Don't have an account/ })
      .first()
      .click();
    await dialog.getByLabel("Email address").fill(BOB);
    await dialog.getByLabel("Password").fill(PASSWORD);
    await dialog.getByRole("button", { name: "Create account" }).click();
    await dialog
      .getByText("Account created! Check your email for confirmation.")
      .waitFor();
    const confirmation = await servers.smtp.mailTo(BOB, 2);
    await bob.goto(confirmation.link);
    await bob
      .getByText("Welcome to Acme Optics! You have joined the organization.")
      .waitFor();
    const notice = bob
      .getByRole("alert")
      .filter({ hasText: "Acme Optics requires two-factor authentication" });
    await notice.waitFor();
    const theirs = await call(bob, "GET", "/api/orgs");
    const text = await notice.textContent();
    if (theirs.body.data.length > 1) {
      assert.match(text, /switch to another of your organizations/);
    } else {
      assert.doesNotMatch(text, /switch/i);
      assert.match(text, /you can leave this organization/);
    }
    assert.equal(
      await notice
        .getByRole("link", { name: "Set up two-factor authentication" })
        .getAttribute("href"),
      "/account/security",
    );
    await lookAtEverySize(bob, "twofactor-held-back");

    // Leave, confirmed.
    await notice.getByRole("button", { name: "Leave Acme Optics" }).click();
    const confirm = bob.getByRole("dialog", { name: "Leave organization?" });
    await confirm.getByText(/an admin will have to invite you again/).waitFor();
    await lookAtEverySize(bob, "twofactor-leave-confirm");
    await confirm.getByRole("button", { name: "Leave", exact: true }).click();
    await bob.getByText("You have left Acme Optics.").waitFor();
    await bob
      .getByRole("heading", { level: 1, name: "Developer Dashboard" })
      .waitFor();
    const left = await call(bob, "GET", "/api/orgs");
    assert.ok(
      !left.body.data.some((o) => o.id === org.id),
      "Bob is no member any more",
    );

    // Ada's audit log: an app by its name (and a deleted one by the name it had), Bob by his address.
    assert.equal(
      sqliteRun(
        servers.portal.databasePath,
        "UPDATE organizations SET require_two_factor = 0 WHERE id = ?",
        [org.id],
      ),
      1,
    );
    for (const [pkg, name] of [
      [PACKAGE, "Weather Everywhere"],
      [`${PACKAGE}.old`, "Old Forecasts"],
    ]) {
      const registered = await call(
        ada,
        "POST",
        "/api/dev/apps/register",
        {
          packageName: pkg,
          name,
          description: "Forecasts on your glasses",
          publicUrl: "https://weather.acme.test",
          logoURL: "https://cdn.acme.test/weather.png",
          appType: "standard",
        },
        org.id,
      );
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
    }
    const shared = await call(
      ada,
      "PATCH",
      `/api/dev/apps/${PACKAGE}/visibility`,
      { sharedWithOrganization: true },
      org.id,
    );
    assert.equal(shared.status, 200, JSON.stringify(shared.body));
    const deleted = await call(
      ada,
      "DELETE",
      `/api/dev/apps/${PACKAGE}.old`,
      undefined,
      org.id,
    );
    assert.equal(deleted.status, 204, JSON.stringify(deleted.body));

    await ada.goto(`${servers.portal.url}/audit-log`);
    const grid = ada.getByRole("grid", { name: "Audit log of Acme Optics" });
    const sharing = grid
      .locator(".MuiDataGrid-row")
      .filter({ hasText: "App shared with the whole organization" });
    await sharing.getByText("Weather Everywhere", { exact: true }).waitFor();
    await sharing.getByText(`App · ${PACKAGE}`).waitFor();
    await grid
      .locator(".MuiDataGrid-row")
      .filter({ hasText: "App deleted" })
      .getByText("Old Forecasts (deleted)")
      .waitFor();
    await grid
      .locator(".MuiDataGrid-row")
      .filter({ hasText: "Member left" })
      .waitFor();
    // Person and Action are readable at 1280 px: no cell cuts its text off.
    const clipped = await ada.evaluate(() =>
      [...document.querySelectorAll(".MuiDataGrid-cell")]
        .filter((cell) =>
          [cell, ...cell.querySelectorAll("*")].some(
            (e) => e.scrollWidth > e.clientWidth + 1,
          ),
        )
        .map((cell) => cell.textContent),
    );
    assert.deepEqual(clipped, [], "audit cells cut off at 1280 px");
    await lookAtEverySize(ada, "audit-named-targets");

    // At 390 px the log is a list of cards.
    await ada.setViewportSize({ width: 390, height: 844 });
    const cards = ada.getByRole("list", { name: "Audit log of Acme Optics" });
    await cards
      .getByRole("listitem")
      .filter({ hasText: "Old Forecasts (deleted)" })
      .waitFor();
    assert.equal(await ada.locator(".MuiDataGrid-root").count(), 0);
    await cards
      .getByRole("button", {
        name: /^App shared with the whole organization/,
      })
      .click();
    const detail = ada.getByRole("dialog", {
      name: "App shared with the whole organization",
    });
    await detail.getByText(/App: Weather Everywhere/).waitFor();
    await lookAtEverySize(ada, "audit-card-detail");
  });
});
