//! App use cases around the store and other people ([`AppPublishingService`]): publish, sharing with
//! testers, visibility, and moving to another organization.

use std::sync::Arc;

use serde::Serialize;
use serde_json::json;

use super::{AppError, AppService, AppServiceConfig, write_error};
use crate::apps::models::TesterView;
use crate::apps::ports::{AppRepository, OrgProfileLookup, StatusChange};
use crate::apps::review_events::{ReviewEvent, ReviewEventKind};
use crate::apps::sharing::{install_url, issue_share_token, looks_like_share_token, parse_share_emails};
use crate::apps::{App, PackageName};
use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::{Clock, EmailAddress, OrgId, SecretGenerator};
use crate::orgs::ports::MemberDirectory;
use crate::orgs::{ActingMember, OrgAction};

/// The tester link of an app (`{installUrl}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShareLink {
    pub install_url: String,
}

/// The app use cases around the store and other people. Like [`AppService`]'s, every use case checks the
/// member's role (as `AppService::allow` does).
pub struct AppPublishingService {
    apps: Arc<dyn AppRepository>,
    /// The directory of memberships (a move reads the caller's standing in the target organization).
    members: Arc<dyn MemberDirectory>,
    /// The organizations' profiles (publishing needs a complete one).
    orgs: Arc<dyn OrgProfileLookup>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: AppServiceConfig,
}

impl AppPublishingService {
    #[must_use]
    pub fn new(
        apps: Arc<dyn AppRepository>,
        members: Arc<dyn MemberDirectory>,
        orgs: Arc<dyn OrgProfileLookup>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        config: AppServiceConfig,
    ) -> Self {
        Self {
            apps,
            members,
            orgs,
            clock,
            secrets,
            config,
        }
    }

    async fn load(&self, org: OrgId, package: &PackageName) -> Result<App, AppError> {
        self.apps.get(org, package).await?.ok_or(AppError::NotFound)
    }

    /// The audit entry of `action` on the member's app `package`, now.
    fn audit(&self, member: &ActingMember, action: AuditAction, package: &PackageName) -> AuditEntry {
        AuditEntry::by(self.secrets.as_ref(), member.caller(), action, self.clock.now())
            .in_org(member.org())
            .on(AuditTarget::app(package))
    }

    /// Submits the app for review: DEVELOPMENT or REJECTED → SUBMITTED, recorded in its history.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::NotFound`]; [`AppError::IllegalTransition`] from SUBMITTED or
    /// PUBLISHED; [`AppError::ProfileIncomplete`] when the organization lacks a name or contact e-mail;
    /// [`AppError::Conflict`] when the status changed meanwhile; [`AppError::Repo`].
    pub async fn publish(&self, member: &ActingMember, package: &PackageName) -> Result<App, AppError> {
        AppService::allow(member, OrgAction::ManageApps)?;
        let (caller, org) = (member.caller(), member.org());
        let app = self.load(org, package).await?;
        let to = app.app_store_status.publish()?;
        let complete = self.orgs.profile(org).await?.is_some_and(|p| p.is_complete());
        if !complete {
            return Err(AppError::ProfileIncomplete);
        }
        let now = self.clock.now();
        let change = StatusChange {
            to,
            review: None,
            at: now,
            event: ReviewEvent::new(
                self.secrets.as_ref(),
                &app,
                ReviewEventKind::Submitted,
                caller,
                now,
            ),
            emails: Vec::new(),
            audit: vec![self.audit(member, AuditAction::AppPublished, package).change(
                "appStoreStatus",
                app.app_store_status.code(),
                to.code(),
            )],
        };
        self.apps
            .transition(org, package, app.app_store_status, change)
            .await
            .map_err(write_error)
    }

    /// The tester link; the share token is created on first use and the same link answered afterwards.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::NotFound`]; [`AppError::Repo`].
    pub async fn share_link(
        &self,
        member: &ActingMember,
        package: &PackageName,
    ) -> Result<ShareLink, AppError> {
        AppService::allow(member, OrgAction::ManageApps)?;
        let org = member.org();
        self.load(org, package).await?;
        let token = match self.apps.share_token(org, package).await? {
            Some(token) => token,
            None => {
                let candidate = issue_share_token(self.secrets.as_ref());
                self.apps
                    .create_share_token(org, package, &candidate, self.clock.now())
                    .await
                    .map_err(write_error)?
            }
        };
        Ok(ShareLink {
            install_url: install_url(&self.config.store_base_url, &token),
        })
    }

    /// Replaces the tester list (`sharedWithEmails`): each entry must be an address; duplicates are kept
    /// once.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::Validation`] on field `emails`; [`AppError::NotFound`];
    /// [`AppError::Repo`].
    pub async fn set_share_emails(
        &self,
        member: &ActingMember,
        package: &PackageName,
        emails: &[String],
    ) -> Result<Vec<EmailAddress>, AppError> {
        AppService::allow(member, OrgAction::ManageApps)?;
        let org = member.org();
        let emails = parse_share_emails(emails).map_err(|e| AppError::field("emails", e.to_string()))?;
        let current = self.load(org, package).await?;
        // The number of testers, never their addresses.
        let audit = self
            .audit(member, AuditAction::AppSharingChanged, package)
            .change(
                "sharedWithEmailsCount",
                current.shared_with_emails.len(),
                emails.len(),
            );
        self.apps
            .set_share_emails(org, package, emails.clone(), self.clock.now(), &audit)
            .await
            .map_err(write_error)?;
        Ok(emails)
    }

    /// Stores the tester list and answers the tester link (`POST …/share {emails}`).
    ///
    /// # Errors
    /// As [`Self::set_share_emails`] and [`Self::share_link`].
    pub async fn share_with(
        &self,
        member: &ActingMember,
        package: &PackageName,
        emails: &[String],
    ) -> Result<ShareLink, AppError> {
        self.set_share_emails(member, package, emails).await?;
        self.share_link(member, package).await
    }

    /// Sets whether the whole organization sees the app (`sharedWithOrganization`) and answers the app.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::NotFound`]; [`AppError::Repo`].
    pub async fn set_visibility(
        &self,
        member: &ActingMember,
        package: &PackageName,
        shared_with_organization: bool,
    ) -> Result<App, AppError> {
        AppService::allow(member, OrgAction::ManageApps)?;
        let org = member.org();
        let current = self.load(org, package).await?;
        let audit = self
            .audit(member, AuditAction::AppVisibilityChanged, package)
            .change(
                "sharedWithOrganization",
                current.shared_with_organization,
                shared_with_organization,
            );
        self.apps
            .set_visibility(org, package, shared_with_organization, self.clock.now(), &audit)
            .await
            .map_err(write_error)?;
        self.load(org, package).await
    }

    /// Replaces the share token: a new tester link, and the old one stops working at once.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::NotFound`]; [`AppError::Repo`].
    pub async fn reset_share_link(
        &self,
        member: &ActingMember,
        package: &PackageName,
    ) -> Result<ShareLink, AppError> {
        AppService::allow(member, OrgAction::ManageApps)?;
        let org = member.org();
        let token = issue_share_token(self.secrets.as_ref());
        let audit = self.audit(member, AuditAction::AppShareLinkReset, package);
        self.apps
            .replace_share_token(org, package, &token, self.clock.now(), &audit)
            .await
            .map_err(write_error)?;
        Ok(ShareLink {
            install_url: install_url(&self.config.store_base_url, &token),
        })
    }

    /// The app shared under a tester link (read-only tester page; no sign-in needed): only the
    /// [`TesterView`], never the organization, review notes, reviewer or other testers' addresses.
    ///
    /// # Errors
    /// [`AppError::NotFound`] when the token is malformed or unknown; [`AppError::Repo`].
    pub async fn shared_app(&self, token: &str) -> Result<TesterView, AppError> {
        if !looks_like_share_token(token) {
            return Err(AppError::NotFound);
        }
        self.apps
            .find_by_share_token(token)
            .await?
            .map(TesterView::from)
            .ok_or(AppError::NotFound)
    }

    /// Moves the app to another organization. The caller must be an admin of the source and at least a
    /// member of the target; the app keeps its key, status and settings; the move is recorded.
    ///
    /// # Errors
    /// [`AppError::TargetOrgRequired`]; [`AppError::SameOrganization`]; [`AppError::AdminOnly`] in the source; [`AppError::NotMemberOfTarget`]; [`AppError::NotFound`];
    /// [`AppError::TargetRequiresSecondFactor`] when the target requires a second factor the caller's session
    /// has not passed (the source's door checked only the source); [`AppError::Repo`].
    pub async fn move_to(
        &self,
        member: &ActingMember,
        package: &PackageName,
        target: Option<OrgId>,
    ) -> Result<App, AppError> {
        let (caller, from) = (member.caller(), member.org());
        let target = target.ok_or(AppError::TargetOrgRequired)?;
        if target == from {
            return Err(AppError::SameOrganization);
        }
        AppService::allow(member, OrgAction::MoveAppOut)?;
        match self.members.standing_of(target, caller.user_id).await? {
            Some(standing) if standing.role.can(OrgAction::ReceiveApp) => {
                if standing.org_requires_two_factor && !member.passed_second_factor() {
                    return Err(AppError::TargetRequiresSecondFactor);
                }
            }
            _ => return Err(AppError::NotMemberOfTarget),
        }
        let mut app = self.load(from, package).await?;
        let event = ReviewEvent::new(
            self.secrets.as_ref(),
            &app,
            ReviewEventKind::Moved,
            caller,
            self.clock.now(),
        )
        .in_org(target)
        .with_detail(json!({ "fromOrgId": from, "toOrgId": target }));
        // Recorded in both organizations' logs.
        let moved = |org: OrgId| {
            AuditEntry::by(
                self.secrets.as_ref(),
                caller,
                AuditAction::AppMoved,
                self.clock.now(),
            )
            .in_org(org)
            .on(AuditTarget::app(package))
            .change("organizationId", from.to_string(), target.to_string())
        };
        let audit = [moved(from), moved(target)];
        self.apps
            .move_app(from, target, package, event, &audit)
            .await
            .map_err(write_error)?;
        app.org_id = target;
        Ok(app)
    }
}
