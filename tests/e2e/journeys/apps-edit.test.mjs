// Edit App journey in a real Chromium against a real portal (spec §2 Edit App, §4, §5, §8): a developer
// edits every section of a new app, adds settings of several types and reorders them with the keyboard,
// adds an AI tool, saves and sees it all again after a reload, exports the configuration, changes the form,
// imports the file back and saves; opens the share and API key dialogs; adding a permission to a published
// app warns that it goes back to review; finally the app moves to an organization made from the move
// dialog. Each screen is scanned with axe-core and photographed.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";

import * as harness from "../support/harness.mjs";

const { screenshot, sqliteRun } = harness;
import {
  expectNoSeriousA11yViolations,
  lookAtEverySize,
  signUp as signUpWith,
} from "../support/journey.mjs";
import { journeyServers } from "../support/servers.mjs";

const PKG = "com.acme.weather";

// A 1x1 PNG: the smallest logo the server decodes.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

// PORTAL_FRONTEND_DIR, when set, serves another build of the web UI than frontend/dist.
const frontend = process.env.PORTAL_FRONTEND_DIR;
const servers = journeyServers("apps-edit", {
  env: frontend ? { PORTAL_FRONTEND_DIR: frontend } : {},
});

function signUp(page, email) {
  return signUpWith(page, servers, email);
}

/** The labels of the settings, in the order the editor shows them. */
async function settingLabels(page) {
  const section = page.getByRole("region", { name: "App Settings" });
  // The settings editor loads beside the page: its rows are there once its loading state has gone.
  await section
    .getByRole("status")
    .filter({ hasText: "Loading the settings editor" })
    .waitFor({ state: "detached" });
  const rows = section.getByTestId("setting-row");
  const labels = [];
  for (let i = 0; i < (await rows.count()); i++) {
    labels.push(
      await rows
        .nth(i)
        .getByRole("textbox", { name: "Label", exact: true })
        .inputValue(),
    );
  }
  return labels;
}

/** Adds a setting at the end, sets its type, key and label. */
async function addSetting(page, type, key, label) {
  const section = page.getByRole("region", { name: "App Settings" });
  await section.getByRole("button", { name: "Add Setting" }).click();
  const row = section.getByTestId("setting-row").last();
  if (type !== "Toggle") {
    await row.getByRole("combobox", { name: "Type" }).click();
    await page.getByRole("option", { name: type, exact: true }).click();
  }
  await row.getByRole("textbox", { name: "Key", exact: true }).fill(key);
  await row.getByRole("textbox", { name: "Label", exact: true }).fill(label);
  return row;
}

describe("edit app journey", () => {
  test("every section is edited, saved, exported and imported back; a published app warns", async () => {
    const context = await servers.browser.newContext({
      bypassCSP: true,
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    await signUp(page, "ada@example.com");

    // A new app to edit.
    await page.goto(`${servers.portal.url}/apps/create`);
    await page.getByRole("heading", { level: 1, name: "Create App" }).waitFor();
    await page.getByLabel(/Package Name/).fill(PKG);
    await page.getByLabel(/Display Name/).fill("Weather");
    await page.getByLabel(/^Description/).fill("Forecasts on your glasses");
    await page.getByLabel(/Server URL/).fill("weather.acme.test");
    await page.getByTestId("image-upload-input").setInputFiles({
      name: "logo.png",
      mimeType: "image/png",
      buffer: PNG,
    });
    await page.getByRole("button", { name: "Replace Image" }).waitFor();
    await page.getByRole("button", { name: "Create App" }).click();
    const keyDialog = page.getByRole("dialog", { name: "API Key for Weather" });
    await keyDialog.waitFor();
    await keyDialog.getByRole("button", { name: "Close" }).click();
    await page.waitForURL(`**/apps/${PKG}/edit`);

    // The edit page, every section in order.
    await page.getByRole("heading", { level: 1, name: "Edit App" }).waitFor();
    await page.getByLabel(/Display Name/).waitFor();
    const headings = await page
      .getByRole("heading", { level: 2 })
      .allTextContents();
    assert.deepEqual(headings, [
      "Permissions",
      "Hardware Requirements",
      "App Settings",
      "AI Tools",
      "Share with Testers",
      "API Key",
      "App Status",
      "Configuration",
      "Review History",
    ]);
    assert.equal(await page.getByLabel("Package Name").inputValue(), PKG);
    await screenshot(page, "apps-edit-loaded");
    // As wide as the window: nothing invisible makes the page scroll sideways (a screen-reader box sized
    // 100% once made it ~1585 px wide at 1280).
    const overflow = await page.evaluate(
      () =>
        document.documentElement.scrollWidth -
        document.documentElement.clientWidth,
    );
    assert.equal(overflow, 0, "the edit page scrolls sideways");
    await expectNoSeriousA11yViolations(page, "edit app (loaded)");
    // One way back to the list (issue 48 item 11): the Back to Apps link, no Back beside the title or
    // in the save bar (on a phone the title's one was a full-width button).
    assert.equal(await page.getByRole("link", { name: "Back to Apps" }).count(), 1);
    assert.equal(await page.getByRole("link", { name: "Back", exact: true }).count(), 0);
    assert.equal(await page.getByRole("button", { name: "Back", exact: true }).count(), 0);
    await lookAtEverySize(page, "apps-edit-loaded");

    // Descriptive fields; URLs normalised on blur.
    await page.getByLabel(/Display Name/).fill("Weather Pro");
    await page
      .getByLabel(/^Description/)
      .fill("Forecasts and alerts on your glasses");
    await page
      .getByLabel(/Onboarding Instructions/)
      .fill('Say "weather" to start.');
    await page.getByLabel(/Server URL/).fill("http://pro.weather.acme.test/");
    await page.getByLabel(/Server URL/).blur();
    assert.equal(
      await page.getByLabel(/Server URL/).inputValue(),
      "https://pro.weather.acme.test",
    );
    await page.getByLabel(/Webview URL/).fill("pro.weather.acme.test/view");
    await page.getByLabel(/Webview URL/).blur();
    assert.equal(
      await page.getByLabel(/Webview URL/).inputValue(),
      "https://pro.weather.acme.test/view",
    );
    await page.getByLabel(/Foreground App/).check();

    // Permissions and hardware: new rows open in edit mode.
    const permissions = page.getByRole("region", { name: "Permissions" });
    await permissions.getByRole("button", { name: "Add Permission" }).click();
    await permissions
      .getByRole("textbox", { name: "Description" })
      .fill("To hear voice commands");
    await permissions.getByRole("button", { name: "Done" }).click();
    await permissions
      .getByRole("button", { name: "Edit Microphone permission" })
      .waitFor();
    const hardware = page.getByRole("region", {
      name: "Hardware Requirements",
    });
    await hardware
      .getByRole("button", { name: "Add Hardware Requirement" })
      .click();
    await hardware.getByRole("combobox", { name: "Hardware" }).click();
    await page.getByRole("option", { name: "Display" }).click();
    await hardware
      .getByRole("textbox", { name: "Description" })
      .fill("Shows the forecast");
    await hardware.getByRole("button", { name: "Done" }).click();

    // Settings of several types, then reordered by keyboard: Units moves from last to first.
    await addSetting(page, "Toggle", "metric", "Metric units");
    const volume = await addSetting(page, "Slider", "volume", "Volume");
    assert.equal(await volume.getByLabel("Maximum").inputValue(), "100");
    await volume.getByLabel("Default value").fill("40");
    const units = await addSetting(page, "Select", "units", "Units");
    await units.getByRole("button", { name: "Add Option" }).click();
    await units
      .getByRole("textbox", { name: "Option 1 label" })
      .fill("Celsius");
    await units.getByRole("textbox", { name: "Option 1 value" }).fill("c");
    await units
      .getByRole("textbox", { name: "Option 2 label" })
      .fill("Fahrenheit");
    await units.getByRole("textbox", { name: "Option 2 value" }).fill("f");
    await units.getByRole("combobox", { name: "Default option" }).click();
    await page.getByRole("option", { name: "Celsius" }).click();
    assert.deepEqual(await settingLabels(page), [
      "Metric units",
      "Volume",
      "Units",
    ]);
    const handle = page.getByRole("button", {
      name: 'Reorder setting "Units"',
    });
    await handle.focus();
    await page.keyboard.press("Space");
    await page.waitForTimeout(200);
    await page.keyboard.press("ArrowUp");
    await page.waitForTimeout(200);
    await page.keyboard.press("ArrowUp");
    await page.waitForTimeout(200);
    await page.keyboard.press("Space");
    await page.waitForTimeout(300);
    assert.deepEqual(await settingLabels(page), [
      "Units",
      "Metric units",
      "Volume",
    ]);
    await screenshot(page, "apps-edit-settings");

    // An AI tool with comma-separated phrases and a parameter.
    const tools = page.getByRole("region", { name: "AI Tools" });
    await tools.getByRole("button", { name: "Add Tool" }).click();
    await tools.getByRole("textbox", { name: "Tool id" }).fill("forecast");
    await tools
      .getByRole("textbox", { name: "Tool description" })
      .fill("Tells the forecast");
    await tools
      .getByRole("textbox", { name: "Activation phrases" })
      .fill("weather, , what is the forecast ");
    await tools.getByRole("button", { name: "Add Parameter" }).click();
    await tools.getByRole("textbox", { name: "Parameter name" }).fill("day");
    await tools
      .getByRole("textbox", { name: "Allowed values" })
      .fill("today, tomorrow");
    await tools.getByRole("checkbox", { name: "Required" }).check();

    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByText("App updated successfully").waitFor();
    await screenshot(page, "apps-edit-saved");
    await expectNoSeriousA11yViolations(page, "edit app (edited)");

    // A reload shows what was saved, in the saved order.
    await page.reload();
    await page.getByLabel(/Display Name/).waitFor();
    assert.equal(
      await page.getByLabel(/Display Name/).inputValue(),
      "Weather Pro",
    );
    assert.equal(
      await page.getByLabel(/Server URL/).inputValue(),
      "https://pro.weather.acme.test",
    );
    assert.equal(await page.getByLabel(/Foreground App/).isChecked(), true);
    assert.deepEqual(await settingLabels(page), [
      "Units",
      "Metric units",
      "Volume",
    ]);
    assert.equal(
      await page
        .getByRole("region", { name: "AI Tools" })
        .getByRole("textbox", { name: "Activation phrases" })
        .inputValue(),
      "weather, what is the forecast",
    );
    await page.getByText("To hear voice commands").waitFor();

    // Export, change the form, import the file back.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export Configuration" }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `${PKG}_config.json`);
    const file = join(
      mkdtempSync(join(tmpdir(), "apps-edit-")),
      download.suggestedFilename(),
    );
    await download.saveAs(file);
    const exported = JSON.parse(readFileSync(file, "utf8"));
    assert.equal(exported.name, "Weather Pro");
    assert.deepEqual(
      exported.settings.map((s) => s.key),
      ["units", "metric", "volume"],
    );
    await page.getByText("Configuration exported successfully!").waitFor();

    await page.getByLabel(/Display Name/).fill("Something else");
    await page
      .getByRole("region", { name: "App Settings" })
      .getByRole("button", { name: 'Remove setting "Volume"' })
      .click();
    await page.getByTestId("config-file-input").setInputFiles(file);
    const importDialog = page.getByRole("dialog", {
      name: "Import Configuration",
    });
    await importDialog.waitFor();
    await importDialog.getByRole("row", { name: /Name/ }).first().waitFor();
    await screenshot(page, "apps-edit-import-summary");
    await expectNoSeriousA11yViolations(page, "import confirmation");
    await importDialog.getByRole("button", { name: "Import" }).click();
    await page
      .getByText(
        "Configuration imported successfully! Remember to save changes.",
      )
      .waitFor();
    await importDialog.waitFor({ state: "hidden" });
    assert.equal(
      await page.getByLabel(/Display Name/).inputValue(),
      "Weather Pro",
    );
    assert.deepEqual(await settingLabels(page), [
      "Units",
      "Metric units",
      "Volume",
    ]);
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByText("App updated successfully").waitFor();

    // The share and API key dialogs open from their sections.
    await page
      .getByRole("region", { name: "Share with Testers" })
      .getByRole("button", { name: "Share with Testers" })
      .click();
    const share = page.getByRole("dialog", {
      name: "Share Weather Pro with Testers",
    });
    const link = await share.getByLabel("Install link").inputValue();
    assert.match(link, /\/install\/[^/]+$/);
    await screenshot(page, "apps-edit-share");
    await expectNoSeriousA11yViolations(page, "share dialog");
    await share.getByRole("button", { name: "Close" }).click();
    await share.waitFor({ state: "hidden" });
    await page.getByRole("button", { name: "Manage API Key" }).click();
    const key = page.getByRole("dialog", { name: "API Key for Weather Pro" });
    await key.getByRole("button", { name: "Regenerate API Key" }).waitFor();
    await key.getByRole("button", { name: "Close" }).click();
    await key.waitFor({ state: "hidden" });

    // A published app: adding a permission warns that it goes back to review.
    const changed = sqliteRun(
      servers.portal.databasePath,
      "UPDATE apps SET app_store_status = 'PUBLISHED' WHERE package_name = ?",
      [PKG],
    );
    assert.equal(changed, 1);
    await page.reload();
    await page.getByLabel(/Display Name/).waitFor();
    await page
      .getByText(
        "This app is published: adding a permission sends it back to review.",
      )
      .waitFor();
    await page
      .getByRole("region", { name: "Permissions" })
      .getByRole("button", { name: "Add Permission" })
      .click();
    await page.getByRole("button", { name: "Save Changes" }).click();
    const warning = page.getByRole("dialog", {
      name: "Send the app back to review?",
    });
    await warning.waitFor();
    await warning
      .getByText(/Adding Location sends it back to review/)
      .waitFor();
    await screenshot(page, "apps-edit-published-warning");
    await expectNoSeriousA11yViolations(page, "published warning");
    await warning.getByRole("button", { name: "Save and Resubmit" }).click();
    await page.getByText("App updated successfully").waitFor();
    await page
      .getByRole("region", { name: "App Status" })
      .getByText("Submitted")
      .waitFor();
    const history = page.getByRole("region", { name: "Review History" });
    await history.getByText("Sent back to review (permission added)").waitFor();
    await history.getByText("Permissions added: LOCATION").waitFor();

    // The move dialog: its warnings and the missing target.
    await page
      .getByRole("button", { name: "Move to Another Organization" })
      .click();
    const move = page.getByRole("dialog", {
      name: /Move .* to Another Organization/,
    });
    await move
      .getByText("This action cannot be automatically reversed.")
      .waitFor();
    await move.getByRole("button", { name: "Move App" }).click();
    await move.getByText("Please select a target organization").waitFor();
    await screenshot(page, "apps-edit-move");
    await expectNoSeriousA11yViolations(page, "move dialog");
    // A new organization made from the dialog becomes the target; the app moves and the list follows.
    await move.getByRole("button", { name: "Create New Organization" }).click();
    const create = page.getByRole("dialog", {
      name: "Create New Organization",
    });
    await create.getByLabel(/Organization name/).fill("Weather Labs");
    await create.getByRole("button", { name: "Create" }).click();
    await create.waitFor({ state: "hidden" });
    assert.match(
      await move
        .getByRole("combobox", { name: "Target organization" })
        .textContent(),
      /Weather Labs/,
    );
    await move.getByRole("button", { name: "Move App" }).click();
    await page
      .getByText("App moved to new organization successfully")
      .waitFor();
    // The app is no longer read from its old organization: no "not found" on the way to the list.
    assert.equal(await page.getByText(/not found/).count(), 0);
    await page.waitForURL(`${servers.portal.url}/apps`);

    await context.close();
  });
});
