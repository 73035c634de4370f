import { lazy, Suspense } from 'react';

import { useCurrentOrg } from './useCurrentOrg';

// The select (MUI's TextField, Select and Menu) is loaded only for the users who see it: every signed-in
// page's layout holds this component, and most users have one organization.
const OrgSelect = lazy(async () => ({ default: (await import('./OrgSelect')).OrgSelect }));

/** The sidebar's organization switcher: shown only when the user belongs to more than one (spec §2). */
export function OrgSwitcher() {
  const { orgs, current } = useCurrentOrg();
  if (orgs.length < 2 || !current) return null;
  return (
    <Suspense fallback={null}>
      <OrgSelect />
    </Suspense>
  );
}
