//! What reviewers read (the dashboard, the queue, an app with its history) and the review history as the
//! organization's members see it.

use std::collections::BTreeMap;

use super::{Dashboard, ReviewError, ReviewService, ReviewView, for_staff};
use crate::apps::sharing::install_url;
use crate::apps::{App, AppStoreStatus, PackageName};
use crate::common::{Caller, OrgId};
use crate::orgs::{ActingMember, OrgAction};
use crate::review::models::since_last_decision;
use crate::review::{AdminStats, DeveloperHistoryEntry, ReviewEvent, ReviewedApp};

impl ReviewService {
    /// The dashboard: counts per status and the newest submissions.
    ///
    /// # Errors
    /// [`ReviewError::Forbidden`]; [`ReviewError::Repo`].
    pub async fn stats(&self, caller: &Caller) -> Result<AdminStats, ReviewError> {
        Self::require_reviewer(caller)?;
        let counts = self.apps.admin_counts().await?;
        let mut recent: Vec<App> = self
            .apps
            .admin_list_by_status(AppStoreStatus::Submitted)
            .await?
            .into_iter()
            .map(for_staff)
            .collect();
        recent.sort_by_key(|app| std::cmp::Reverse(app.updated_at));
        recent.truncate(self.config.recent_submissions);
        Ok(AdminStats {
            counts,
            recent_submissions: recent,
        })
    }

    /// The dashboard with the organizations' names of the recent submissions.
    ///
    /// # Errors
    /// [`ReviewError::Forbidden`]; [`ReviewError::Repo`].
    pub async fn dashboard(&self, caller: &Caller) -> Result<Dashboard, ReviewError> {
        let mut recent = self.submitted(caller).await?;
        let counts = self.apps.admin_counts().await?;
        recent.sort_by_key(|r| std::cmp::Reverse(r.app.updated_at));
        recent.truncate(self.config.recent_submissions);
        Ok(Dashboard {
            counts,
            recent_submissions: recent,
        })
    }

    /// The review queue: every SUBMITTED app, oldest submission first, with its organization's name.
    ///
    /// # Errors
    /// [`ReviewError::Forbidden`]; [`ReviewError::Repo`].
    pub async fn submitted(&self, caller: &Caller) -> Result<Vec<ReviewedApp>, ReviewError> {
        Self::require_reviewer(caller)?;
        let apps = self.apps.admin_list_by_status(AppStoreStatus::Submitted).await?;
        let mut names: BTreeMap<OrgId, Option<String>> = BTreeMap::new();
        let mut out = Vec::with_capacity(apps.len());
        for app in apps.into_iter().map(for_staff) {
            let name = match names.get(&app.org_id) {
                Some(name) => name.clone(),
                None => {
                    let name = self.orgs.profile(app.org_id).await?.map(|p| p.name);
                    names.insert(app.org_id, name.clone());
                    name
                }
            };
            out.push(ReviewedApp {
                app,
                organization_name: name,
            });
        }
        Ok(out)
    }

    /// Any app submitted at least once, with its organization's name (the review dialog), without its
    /// tester list.
    ///
    /// # Errors
    /// [`ReviewError::Forbidden`]; [`ReviewError::NotFound`] (also for an app never submitted);
    /// [`ReviewError::Repo`].
    pub async fn app(&self, caller: &Caller, package: &PackageName) -> Result<ReviewedApp, ReviewError> {
        Self::require_reviewer(caller)?;
        let app = self.staff_app(package).await?;
        let organization_name = self.orgs.profile(app.org_id).await?.map(|p| p.name);
        Ok(ReviewedApp {
            app,
            organization_name,
        })
    }

    /// The review dialog: the app, its organization's name, its history, and whether a decision by the
    /// caller would be a self-review.
    ///
    /// # Errors
    /// [`ReviewError::Forbidden`]; [`ReviewError::NotFound`]; [`ReviewError::Repo`].
    pub async fn review_view(
        &self,
        caller: &Caller,
        package: &PackageName,
    ) -> Result<ReviewView, ReviewError> {
        let reviewed = self.app(caller, package).await?;
        let history = self.reviews.admin_history(package).await?;
        let self_review = self.is_member(caller, reviewed.app.org_id).await?;
        let tester_url = self
            .apps
            .share_token(reviewed.app.org_id, package)
            .await?
            .map(|token| install_url(&self.config.store_base_url, &token));
        Ok(ReviewView {
            since_last_decision: since_last_decision(&reviewed.app, &history),
            reviewed,
            history,
            self_review,
            tester_url,
        })
    }

    /// The review history of any app submitted at least once, oldest first.
    ///
    /// # Errors
    /// [`ReviewError::Forbidden`]; [`ReviewError::NotFound`] (also for an app never submitted);
    /// [`ReviewError::Repo`].
    pub async fn admin_history(
        &self,
        caller: &Caller,
        package: &PackageName,
    ) -> Result<Vec<ReviewEvent>, ReviewError> {
        Self::require_reviewer(caller)?;
        self.staff_app(package).await?;
        Ok(self.reviews.admin_history(package).await?)
    }

    /// The review history of one of the organization's apps, for its members: reviewers from outside the
    /// organization are named "App Review" ([`DeveloperHistoryEntry`]).
    ///
    /// # Errors
    /// [`ReviewError::NotMember`]; [`ReviewError::NotFound`] when the organization has no such app;
    /// [`ReviewError::Repo`].
    pub async fn history(
        &self,
        member: &ActingMember,
        package: &PackageName,
    ) -> Result<Vec<DeveloperHistoryEntry>, ReviewError> {
        if !member.can(OrgAction::View) {
            return Err(ReviewError::NotMember);
        }
        let events = self
            .reviews
            .history(member.org(), package)
            .await?
            .ok_or(ReviewError::NotFound)?;
        Ok(events.into_iter().map(DeveloperHistoryEntry::of).collect())
    }
}
