// What every journey file starts before its tests and stops after them: an SMTP server that keeps what it
// receives, the portal on a fresh database and Debian's Chromium; the portals' logs are kept in output/.
import { after, before } from 'node:test';

import { launchBrowser, saveLogs, startPortal, startSmtp } from './harness.mjs';

/**
 * Registers the journey file's `before` (start) and `after` (stop, keeping each portal's log as
 * `output/<name>-portal.log`, or `output/<name>-<label>-portal.log`) and answers the servers, whose fields
 * are filled once they have started:
 *
 * - `smtp`: the SMTP server (none with `smtp: false`); the portal sends through it (`SMTP_URL`).
 * - `portal`: the portal, with `env` added to its configuration and started at `host` (none with
 *   `portal: false`: a file whose tests start their own portals does so with `servers.startPortal`).
 *   `env` may be a function (async or not), called at start: it can start what the configuration names
 *   (an identity provider) and answer the configuration. A file's own top-level `before` hooks run as
 *   soon as they are registered, side by side with this one: the portal's configuration cannot wait for
 *   them.
 * - `browser`: Chromium.
 *
 * `{ portal, smtp }`, as `signUp` of journey.mjs takes them, is the answer itself.
 */
export function journeyServers(
  name,
  { smtp: withSmtp = true, portal: withPortal = true, env = {}, host } = {},
) {
  /** Every portal of the file, with the label its log is kept under (`null`: the file's one portal). */
  const portals = [];
  const servers = {
    smtp: undefined,
    portal: undefined,
    browser: undefined,
    /** Starts a portal of one test (`label` names its log); it is stopped after the file's tests. */
    async startPortal(label, portalEnv = {}, options = {}) {
      const portal = await startPortal(portalEnv, options);
      portals.push([label, portal]);
      return portal;
    },
  };

  before(async () => {
    if (withSmtp) servers.smtp = await startSmtp();
    if (withPortal) {
      const configured = typeof env === 'function' ? await env() : env;
      servers.portal = await startPortal(
        { ...(servers.smtp ? { SMTP_URL: servers.smtp.url } : {}), ...configured },
        host ? { host } : {},
      );
      portals.push([null, servers.portal]);
    }
    servers.browser = await launchBrowser();
  });

  after(async () => {
    await servers.browser?.close();
    for (const [label, portal] of portals) {
      saveLogs(label ? `${name}-${label}-portal` : `${name}-portal`, portal.logs());
      await portal.stop();
    }
    await servers.smtp?.stop();
  });

  return servers;
}
