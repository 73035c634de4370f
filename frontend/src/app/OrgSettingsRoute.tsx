import { useListAppsQuery } from '../features/apps';
import { useCurrentOrg } from '../features/orgs';
import { OrgSettingsPage, type OwnedApps } from '../features/orgs/OrgSettingsPage';
import { OrgTokensSection } from '../features/tokens';
import { WebhooksLinkCard } from '../features/webhooks';

/**
 * `/org-settings` with what the apps feature knows of the current organization: how many apps it owns,
 * so that the page refuses to delete it before its name is typed (the apps feature builds on the
 * organizations one, which therefore cannot ask it); and, for its admins, the access tokens that act in
 * it (the tokens feature builds on the organizations one too), and the way to its Webhooks page.
 */
export function OrgSettingsRoute() {
  const orgId = useCurrentOrg().current?.id;
  const apps = useListAppsQuery({ orgId: orgId ?? '' }, { skip: !orgId });
  const ownedApps: OwnedApps | undefined = orgId
    ? {
        orgId,
        count: apps.currentData?.length ?? null,
        loading: apps.currentData === undefined && !apps.isError,
      }
    : undefined;
  return (
    <OrgSettingsPage
      ownedApps={ownedApps}
      adminSections={(org) => (
        <>
          <OrgTokensSection key={`tokens-${org.id}`} org={org} />
          <WebhooksLinkCard />
        </>
      )}
    />
  );
}
