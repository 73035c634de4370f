// Layout journey (issue 25, items 1 and 8): no signed-in page scrolls sideways at 1280 px or at 390 px
// (`document.documentElement.scrollWidth` against the viewport), on a phone the top bar stays on one line
// (and from 900 to 1100 px, with the account menu: issue 48, item 10) and the row actions of every table stay
// within reach (Members is a list of cards below 600 px: issue 48, item 8), the sidebar's colour runs the full
// height of long pages (issue 48, item 15); screenshots of each page at both
// widths, light and dark, under tests/e2e/output/ (layout-*.png).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { screenshot } from "../support/harness.mjs";
import { productCall as call, signUp as signUpIn } from "../support/journey.mjs";
import { journeyServers } from "../support/servers.mjs";

const ADMIN = "layout-admin@example.com";
const PACKAGE = "com.acme.layout.notes";

const servers = journeyServers("layout", { env: { PORTAL_ADMIN_EMAILS: ADMIN } });

/** How far the page reaches past the viewport's width (0 when nothing overflows). */
async function overflow(page) {
  return page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
}

/** The element (tag, classes, right edge) reaching furthest past the viewport, for the failure message. */
async function widest(page) {
  return page.evaluate(() => {
    let found = null;
    for (const element of document.body.querySelectorAll("*")) {
      const right = element.getBoundingClientRect().right;
      if (!found || right > found.right)
        found = { right, what: `${element.tagName} ${element.className}`.slice(0, 160) };
    }
    return found;
  });
}

/** The audit log's first entry: a grid row on a wide screen, a card on a phone. */
function firstAuditEntry(page) {
  return page
    .locator(".MuiDataGrid-row")
    .or(page.getByRole("list", { name: /^Audit log of|^Platform audit log/ }).getByRole("listitem"))
    .first();
}

/** The audit grid's cells whose text is cut off (wider than the cell): none, at any width it shows. */
async function clippedAuditCells(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".MuiDataGrid-cell")]
      .filter((cell) => {
        const inner = [cell, ...cell.querySelectorAll("*")];
        return inner.some((element) => element.scrollWidth > element.clientWidth + 1);
      })
      .map((cell) => `${cell.getAttribute("data-field")}: ${cell.textContent}`),
  );
}

/** Every page to check: its path, the heading it waits for and, optionally, what to do on it first. */
function signedInPages(installUrl) {
  return [
    { name: "dashboard", path: "/dashboard", heading: "Developer Dashboard" },
    { name: "apps", path: "/apps", heading: "My Apps" },
    { name: "app-create", path: "/apps/create", heading: /Create/ },
    { name: "app-edit", path: `/apps/${PACKAGE}/edit`, heading: "Edit App" },
    { name: "org-settings", path: "/org-settings", heading: "Organization Settings" },
    { name: "members", path: "/members", heading: /Members/ },
    {
      name: "audit-log",
      path: "/audit-log",
      heading: "Audit Log",
      async then(page) {
        // A grid from 900 px, a list of cards below (issue 35, item 5).
        await firstAuditEntry(page).waitFor();
      },
    },
    { name: "account-security", path: "/account/security", heading: "Account Security" },
    ...["Dashboard", "App Submissions", "App Status", "Platform Users", "Audit Log"].map((tab) => ({
      name: `admin-${tab.toLowerCase().replace(/ /g, "-")}`,
      path: "/admin",
      heading: "Admin Panel",
      async then(page) {
        await page.getByRole("tab", { name: tab }).click();
        await page.waitForLoadState("networkidle");
        // The audit log's grid shows its skeleton until its first page is read.
        if (tab === "Audit Log")
          await page.getByText("No audit entries yet").or(firstAuditEntry(page)).waitFor();
      },
    })),
    { name: "tester", path: new URL(installUrl).pathname, heading: /Notes/ },
  ];
}

describe("layout journey", () => {
  test("no page overflows sideways at 1280 px or 390 px; phones keep the top bar and row actions", async () => {
    // One account with an app (a share link for the tester page), platform admin for the Admin Panel.
    const setup = await (await servers.browser.newContext({ bypassCSP: true })).newPage();
    await signUpIn(setup, servers, ADMIN);
    const orgs = await call(setup, "GET", "/api/orgs");
    const orgId = orgs.body.data[0].id;
    const registered = await call(
      setup,
      "POST",
      "/api/dev/apps/register",
      {
        packageName: PACKAGE,
        name: "Notes for the Road with a Rather Long Display Name",
        description: "Takes notes hands-free.",
        publicUrl: "https://notes.acme.test",
        logoURL: "https://cdn.acme.test/notes.png",
        appType: "standard",
      },
      orgId,
    );
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const share = await call(setup, "GET", `/api/dev/apps/${PACKAGE}/share`, undefined, orgId);
    assert.equal(share.status, 200, JSON.stringify(share.body));
    const installUrl = share.body.installUrl ?? share.body.data?.installUrl;
    assert.ok(installUrl, JSON.stringify(share.body));
    // A pending invitation with a long address: Members shows it as a card of its own on a phone.
    const invited = await call(
      setup,
      "POST",
      `/api/orgs/${orgId}/members`,
      { email: "a.colleague.with.a.rather.long.address@layout-example.com", role: "member" },
      orgId,
    );
    assert.ok([200, 201].includes(invited.status), JSON.stringify(invited.body));
    const storage = await setup.context().storageState();

    const problems = [];
    for (const width of [1280, 390]) {
      for (const colorScheme of ["light", "dark"]) {
        const context = await servers.browser.newContext({
          bypassCSP: true,
          storageState: storage,
          viewport: { width, height: width > 600 ? 900 : 844 },
          colorScheme,
          isMobile: width < 600,
          hasTouch: width < 600,
        });
        const page = await context.newPage();
        for (const screen of signedInPages(installUrl)) {
          await page.goto(`${servers.portal.url}${screen.path}`);
          await page.getByRole("heading", { level: 1, name: screen.heading }).first().waitFor();
          await page.waitForLoadState("networkidle");
          if (screen.then) await screen.then(page);
          if (width > 900 && ["account-security", "app-edit", "org-settings"].includes(screen.name)) {
            // The sidebar's colour runs the full height of a page longer than the window (issue 48, item 15).
            const sidebar = await page.evaluate(() => {
              const column = document.querySelector(".MuiDrawer-docked");
              const paper = column.querySelector(".MuiDrawer-paper");
              return {
                page: document.documentElement.scrollHeight,
                window: window.innerHeight,
                column: column.getBoundingClientRect().height,
                columnColour: getComputedStyle(column).backgroundColor,
                paperColour: getComputedStyle(paper).backgroundColor,
              };
            });
            assert.ok(sidebar.page > sidebar.window, `${screen.name} is longer than the window: ${JSON.stringify(sidebar)}`);
            assert.ok(sidebar.column >= sidebar.page - 1, `${screen.name}: the sidebar's column runs the page's height: ${JSON.stringify(sidebar)}`);
            assert.equal(sidebar.columnColour, sidebar.paperColour, `${screen.name}: the column has the sidebar's colour`);
          }
          if (screen.name === "members") {
            // A table from 600 px, a list of cards below (issue 48, item 8): nothing cut off at 390 px.
            const cards = page.getByRole("list", { name: "Members" });
            const table = page.getByRole("table", { name: "Members" });
            await (width < 600 ? cards : table).waitFor();
            assert.equal(await (width < 600 ? table : cards).count(), 0, `members at ${width} px: one view only`);
            if (width < 600) {
              const leave = cards.getByRole("button", { name: "Leave", exact: true });
              const box = await leave.boundingBox();
              assert.ok(box && box.x + box.width <= width, `members: Leave is on screen (${JSON.stringify(box)})`);
              assert.equal(await leave.textContent(), "Leave", "members: Leave is named in full");
              const invitation = cards.getByRole("listitem").filter({ hasText: "(pending)" });
              for (const name of ["Resend", "Cancel"]) {
                const button = invitation.getByRole("button", { name, exact: true });
                const at = await button.boundingBox();
                assert.ok(at && at.x + at.width <= width, `members: ${name} is on screen (${JSON.stringify(at)})`);
              }
            }
          }
          if (screen.name.includes("audit-log")) {
            const clipped = await clippedAuditCells(page);
            if (clipped.length > 0)
              problems.push(`${screen.name} at ${width} px (${colorScheme}) cuts off: ${clipped.join("; ")}`);
            if (width < 600)
              assert.equal(
                await page.locator(".MuiDataGrid-root").count(),
                0,
                `${screen.name}: a phone gets the list of cards, not the grid`,
              );
          }
          const extra = await overflow(page);
          if (extra > 0)
            problems.push(
              `${screen.name} at ${width} px (${colorScheme}) is ${extra} px too wide: ${JSON.stringify(await widest(page))}`,
            );
          await screenshot(page, `layout-${screen.name}-${width}-${colorScheme}`);

          if (width < 600 && screen.name !== "tester") {
            // The top bar keeps the menu button, the logo and the account actions on one line.
            const bar = await page.locator("header").first().boundingBox();
            assert.ok(bar.height <= 64, `${screen.name}: the top bar is ${bar.height} px high`);
            for (const control of [
              page.getByRole("button", { name: "Open navigation" }),
              page.getByRole("link", { name: /Developer Portal/ }).first(),
              page.getByRole("button", { name: "Account menu" }),
            ]) {
              const box = await control.boundingBox();
              assert.ok(box, `${screen.name}: ${control} is visible`);
              // One line of text each: a wrapped name or button is taller than a button of one line.
              assert.ok(box.height <= 48, `${screen.name}: ${control} keeps one line (${box.height} px)`);
              assert.ok(
                box.y >= bar.y && box.y + box.height <= bar.y + bar.height && box.x + box.width <= width,
                `${screen.name}: ${control} sits in the top bar (${JSON.stringify(box)})`,
              );
            }
          }
        }

        if (width < 600) {
          // Row actions stay on screen: My Apps and Members.
          await page.goto(`${servers.portal.url}/apps`);
          const actions = page.getByRole("button", { name: /^Actions for / }).first();
          await actions.waitFor();
          const box = await actions.boundingBox();
          assert.ok(box.x + box.width <= width, `the apps row actions are on screen: ${JSON.stringify(box)}`);

          // The publish dialog (this organization has no contact e-mail: its warning carries a button):
          // no button's label wraps over more than two lines (issue 25, item 10)
          await actions.click();
          await page.getByRole("menuitem", { name: /Publish to App Store/ }).click();
          const dialog = page.getByRole("dialog", { name: "Publish to App Store" });
          await dialog.getByRole("link", { name: "Complete Organization Profile" }).waitFor();
          const lines = await dialog.evaluate((root) =>
            [...root.querySelectorAll("button, a.MuiButton-root")].map((button) => {
              const style = getComputedStyle(button);
              const inner =
                button.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
              return {
                label: button.textContent,
                lines: Math.round(inner / parseFloat(style.lineHeight)),
                clipped: button.scrollWidth > button.clientWidth,
              };
            }),
          );
          // Nor is cut off: a label kept on one line must still fit.
          const wrapped = lines.filter((button) => button.lines > 2 || button.clipped);
          assert.deepEqual(wrapped, [], `publish dialog buttons at ${width} px (${colorScheme})`);
          await screenshot(page, `layout-publish-dialog-${width}-${colorScheme}`);
        }
        await context.close();
      }
    }
    assert.deepEqual(problems, [], "pages wider than the viewport, or audit cells cut off");

    // Between 900 and 1100 px the top bar was crowded (issue 48, item 10): with the account links and Sign Out
    // in the account menu, its controls keep one line and stay apart.
    const tablet = await servers.browser.newContext({ bypassCSP: true, storageState: storage });
    const bar = await tablet.newPage();
    for (const width of [900, 1000, 1100]) {
      await bar.setViewportSize({ width, height: 900 });
      await bar.goto(`${servers.portal.url}/dashboard`);
      await bar.getByRole("heading", { level: 1, name: "Developer Dashboard" }).waitFor();
      // The page's code has taken over from the shell built ahead of time (the avatar shows the address).
      await bar.waitForLoadState("networkidle");
      await bar.getByRole("button", { name: "Account menu" }).and(bar.locator("[title]")).waitFor();
      const header = await bar.locator("header").first().boundingBox();
      assert.ok(header.height <= 64, `the top bar at ${width} px is ${header.height} px high`);
      const boxes = [];
      for (const control of [
        bar.getByRole("link", { name: /Developer Portal/ }).first(),
        bar.getByRole("banner").getByRole("link", { name: /Documentation/ }),
        bar.getByRole("button", { name: /^Color scheme:/ }),
        bar.getByRole("button", { name: "Account menu" }),
      ]) {
        const box = await control.boundingBox();
        assert.ok(box, `${control} is visible at ${width} px`);
        assert.ok(box.height <= 48, `${control} keeps one line at ${width} px (${box.height} px)`);
        assert.ok(box.x + box.width <= width, `${control} is on screen at ${width} px`);
        boxes.push(box);
      }
      for (let i = 1; i < boxes.length; i++)
        assert.ok(boxes[i - 1].x + boxes[i - 1].width <= boxes[i].x, `the top bar's controls overlap at ${width} px`);
      await screenshot(bar, `layout-topbar-${width}`);
    }
    await tablet.close();

    // Sign-in, on a phone.
    const phone = await servers.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const signIn = await phone.newPage();
    await signIn.goto(`${servers.portal.url}/signin`);
    await signIn.getByRole("button", { name: "Continue with Email" }).waitFor();
    assert.equal(await overflow(signIn), 0, "the sign-in page fits a phone");
    await screenshot(signIn, "layout-signin-390-light");
    await phone.close();
  });
});
