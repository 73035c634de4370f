//! The platform admins' maintenance tools (PRODUCT.md §5: admin-only): the platform-role counts of the
//! dashboard, the debug report, the repair of stored store statuses, and test submissions in demo mode.
//!
//! Reviewers review; only an `admin` uses these tools, except the role counts that the dashboard shows to
//! every reviewer.

use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::json;

use super::{ReviewEvent, ReviewEventKind};
use crate::apps::keys::issue_api_key;
use crate::apps::ports::{AppRepository, OrgProfileLookup, StatusChange};
use crate::apps::{App, AppStoreStatus, PackageName};
use crate::common::{Caller, Clock, OrgId, PlatformRole, RepoError, SecretGenerator};
use crate::identity::ports::PlatformAdminRepository;
use crate::orgs::{MemberDirectory, OrgRepository};

pub const ADMINS_ONLY: &str = "Only platform admins can do this";
pub const REVIEWERS_ONLY: &str = super::service::REVIEWERS_ONLY;
pub const DEMO_ONLY: &str = "Test submissions are only available in demo mode";
pub const NO_ORGANIZATION: &str = "You need an organization to own the test submission";
pub const NOT_A_MEMBER: &str = super::service::NOT_A_MEMBER;

/// The `publicUrl` of test submissions: a reserved top-level domain that never resolves, so that nothing
/// outside is ever contacted for a test app.
pub const TEST_SUBMISSION_URL: &str = "https://test-submission.invalid";

/// Reads and repairs the stored store status of apps, as stored (also spellings the domain does not know).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait StoreStatusMaintenance: Send + Sync {
    /// How many apps have each stored status text, spelled as stored.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn stored_status_counts(&self) -> Result<BTreeMap<String, u64>, RepoError>;

    /// Rewrites every stored status that is not one of the four canonical spellings (`DEVELOPMENT`,
    /// `SUBMITTED`, `PUBLISHED`, `REJECTED`) to `DEVELOPMENT` (what such an app already shows as), setting
    /// its `updatedAt` to `at`, in one transaction; answers the apps rewritten.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn normalise_store_statuses(&self, at: DateTime<Utc>) -> Result<Vec<PackageName>, RepoError>;
}

/// Settings of the maintenance tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlatformToolsConfig {
    /// Demo mode (`PORTAL_DEMO`): test submissions are allowed.
    pub demo: bool,
}

/// How many people hold each platform role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RoleCounts {
    pub admins: u64,
    pub reviewers: u64,
    /// Roles given to an address that no account has proven yet.
    pub pending: u64,
}

/// What `GET /api/admin/debug` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebugReport {
    /// Apps per stored status text.
    pub stored_statuses: BTreeMap<String, u64>,
    /// Apps whose stored status is none of the four (they show as Development; `fix-app-statuses` repairs
    /// them).
    pub unknown_statuses: u64,
    /// SUBMITTED apps whose organization has no contact e-mail: a decision on them e-mails nobody.
    pub submitted_without_contact: Vec<PackageName>,
    pub roles: RoleCounts,
    pub demo: bool,
}

/// Errors of the maintenance tools; the doc of each variant names its HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum PlatformToolsError {
    /// 403: the caller is not a platform `admin`.
    #[error("{}", ADMINS_ONLY)]
    AdminsOnly,
    /// 403: the caller is neither platform admin nor reviewer.
    #[error("{}", REVIEWERS_ONLY)]
    ReviewersOnly,
    /// 404: demo mode is off.
    #[error("{}", DEMO_ONLY)]
    DemoOff,
    /// 403: the organization named is not one of the caller's.
    #[error("{}", NOT_A_MEMBER)]
    NotMember,
    /// 400: the caller belongs to no organization.
    #[error("{}", NO_ORGANIZATION)]
    NoOrganization,
    /// 500.
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl PlatformToolsError {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::AdminsOnly | Self::ReviewersOnly | Self::NotMember => "FORBIDDEN",
            Self::DemoOff => "NOT_FOUND",
            Self::NoOrganization => "NO_ORGANIZATION",
            Self::Repo(_) => "INTERNAL",
        }
    }
}

/// The platform admins' maintenance use cases.
pub struct PlatformTools {
    apps: Arc<dyn AppRepository>,
    maintenance: Arc<dyn StoreStatusMaintenance>,
    admins: Arc<dyn PlatformAdminRepository>,
    profiles: Arc<dyn OrgProfileLookup>,
    orgs: Arc<dyn OrgRepository>,
    members: Arc<dyn MemberDirectory>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: PlatformToolsConfig,
}

/// The ports of [`PlatformTools`].
pub struct PlatformToolsPorts {
    pub apps: Arc<dyn AppRepository>,
    pub maintenance: Arc<dyn StoreStatusMaintenance>,
    pub admins: Arc<dyn PlatformAdminRepository>,
    pub profiles: Arc<dyn OrgProfileLookup>,
    pub orgs: Arc<dyn OrgRepository>,
    pub members: Arc<dyn MemberDirectory>,
    pub clock: Arc<dyn Clock>,
    pub secrets: Arc<dyn SecretGenerator>,
}

impl PlatformTools {
    #[must_use]
    pub fn new(ports: PlatformToolsPorts, config: PlatformToolsConfig) -> Self {
        Self {
            apps: ports.apps,
            maintenance: ports.maintenance,
            admins: ports.admins,
            profiles: ports.profiles,
            orgs: ports.orgs,
            members: ports.members,
            clock: ports.clock,
            secrets: ports.secrets,
            config,
        }
    }

    const fn require_admin(caller: &Caller) -> Result<(), PlatformToolsError> {
        if matches!(caller.platform_role, Some(PlatformRole::Admin)) {
            Ok(())
        } else {
            Err(PlatformToolsError::AdminsOnly)
        }
    }

    /// Whether demo mode is on.
    #[must_use]
    pub const fn demo(&self) -> bool {
        self.config.demo
    }

    /// How many platform admins and reviewers there are (the dashboard's `admins` count).
    ///
    /// # Errors
    /// [`PlatformToolsError::ReviewersOnly`]; [`PlatformToolsError::Repo`].
    pub async fn role_counts(&self, caller: &Caller) -> Result<RoleCounts, PlatformToolsError> {
        if !caller.can_review() {
            return Err(PlatformToolsError::ReviewersOnly);
        }
        self.count_roles().await
    }

    async fn count_roles(&self) -> Result<RoleCounts, PlatformToolsError> {
        let mut counts = RoleCounts::default();
        for entry in self.admins.list().await? {
            if !entry.is_bound() {
                counts.pending += 1;
            }
            match entry.role {
                PlatformRole::Admin => counts.admins += 1,
                PlatformRole::Reviewer => counts.reviewers += 1,
            }
        }
        Ok(counts)
    }

    /// The debug report (admins).
    ///
    /// # Errors
    /// [`PlatformToolsError::AdminsOnly`]; [`PlatformToolsError::Repo`].
    pub async fn debug(&self, caller: &Caller) -> Result<DebugReport, PlatformToolsError> {
        Self::require_admin(caller)?;
        let stored_statuses = self.maintenance.stored_status_counts().await?;
        let unknown_statuses = stored_statuses
            .iter()
            .filter(|(text, _)| !AppStoreStatus::ALL.iter().any(|s| s.code() == text.as_str()))
            .map(|(_, count)| count)
            .sum();
        let mut submitted_without_contact = Vec::new();
        let mut contacts: BTreeMap<OrgId, bool> = BTreeMap::new();
        for app in self.apps.admin_list_by_status(AppStoreStatus::Submitted).await? {
            let has_contact = match contacts.get(&app.org_id) {
                Some(known) => *known,
                None => {
                    let known = self
                        .profiles
                        .profile(app.org_id)
                        .await?
                        .is_some_and(|p| p.contact_email.is_some());
                    contacts.insert(app.org_id, known);
                    known
                }
            };
            if !has_contact {
                submitted_without_contact.push(app.package_name);
            }
        }
        Ok(DebugReport {
            stored_statuses,
            unknown_statuses,
            submitted_without_contact,
            roles: self.count_roles().await?,
            demo: self.config.demo,
        })
    }

    /// Repairs stored statuses the domain does not know (admins): they become `DEVELOPMENT`, which is
    /// what such apps already show as. Answers the apps repaired (none the second time).
    ///
    /// # Errors
    /// [`PlatformToolsError::AdminsOnly`]; [`PlatformToolsError::Repo`].
    pub async fn fix_app_statuses(&self, caller: &Caller) -> Result<Vec<PackageName>, PlatformToolsError> {
        Self::require_admin(caller)?;
        Ok(self
            .maintenance
            .normalise_store_statuses(self.clock.now())
            .await?)
    }

    /// Creates a SUBMITTED test app in demo mode (admins), owned by `org` (one of the caller's
    /// organizations) or else by the caller's oldest organization, so that the review loop can be tried
    /// without a developer. Its `publicUrl` never resolves ([`TEST_SUBMISSION_URL`]) and its history
    /// records the submission by the caller with `detail.testSubmission`.
    ///
    /// # Errors
    /// [`PlatformToolsError::AdminsOnly`]; [`PlatformToolsError::DemoOff`]; [`PlatformToolsError::NotMember`];
    /// [`PlatformToolsError::NoOrganization`]; [`PlatformToolsError::Repo`].
    pub async fn create_test_submission(
        &self,
        caller: &Caller,
        org: Option<OrgId>,
    ) -> Result<App, PlatformToolsError> {
        Self::require_admin(caller)?;
        if !self.config.demo {
            return Err(PlatformToolsError::DemoOff);
        }
        let org = match org {
            Some(org) => {
                if self.members.role_of(org, caller.user_id).await?.is_none() {
                    return Err(PlatformToolsError::NotMember);
                }
                org
            }
            None => self
                .orgs
                .list_for_user(caller.user_id)
                .await?
                .first()
                .map(|m| m.organization.id)
                .ok_or(PlatformToolsError::NoOrganization)?,
        };
        let app = self.test_app(caller, org)?;
        let key = issue_api_key(self.secrets.as_ref());
        let now = self.clock.now();
        let audit = |action| {
            AuditEntry::by(self.secrets.as_ref(), caller, action, now)
                .in_org(org)
                .on(AuditTarget::app(&app.package_name))
        };
        let created =
            audit(AuditAction::AppCreated).change("name", serde_json::Value::Null, app.name.as_str());
        self.apps.insert(&app, &key.hash, &created).await?;
        let event = ReviewEvent::new(
            self.secrets.as_ref(),
            &app,
            ReviewEventKind::Submitted,
            caller,
            now,
        )
        .with_detail(json!({ "testSubmission": true }));
        let change = StatusChange {
            to: AppStoreStatus::Submitted,
            review: None,
            at: now,
            event,
            emails: Vec::new(),
            audit: vec![audit(AuditAction::AppPublished).change(
                "appStoreStatus",
                AppStoreStatus::Development.code(),
                AppStoreStatus::Submitted.code(),
            )],
        };
        Ok(self
            .apps
            .transition(org, &app.package_name, AppStoreStatus::Development, change)
            .await?)
    }

    fn test_app(&self, caller: &Caller, org: OrgId) -> Result<App, PlatformToolsError> {
        let suffix = self.secrets.token_hex(4);
        let package_name = PackageName::parse(&format!("com.example.test-submission-{suffix}"))
            .map_err(|e| RepoError::backend("naming a test submission", e))?;
        Ok(App {
            name: format!("Test Submission {suffix}"),
            description: "A test submission created from the Admin Panel in demo mode.".into(),
            public_url: TEST_SUBMISSION_URL.into(),
            ..App::registered(package_name, org, caller.user_id, self.clock.now())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::ports::{MockAppRepository, MockOrgProfileLookup, OrgContact};
    use crate::apps::service::fixtures::{developer, reviewer, sample_app};
    use crate::common::{EmailAddress, UserId};
    use crate::identity::models::PlatformAdmin;
    use crate::identity::ports::MockPlatformAdminRepository;
    use crate::orgs::OrgRole;
    use crate::orgs::ports::{MockMemberDirectory, MockOrgRepository};
    use crate::testing::{RepeatingBytes, block_on, fixed_clock, noon};

    fn admin() -> Caller {
        Caller {
            user_id: UserId::new(),
            email: EmailAddress::parse("admin@portal.example.com").unwrap(),
            platform_role: Some(PlatformRole::Admin),
            origin: crate::common::ClientOrigin::default(),
        }
    }

    #[derive(Default)]
    struct Harness {
        apps: MockAppRepository,
        maintenance: MockStoreStatusMaintenance,
        admins: MockPlatformAdminRepository,
        profiles: MockOrgProfileLookup,
        orgs: MockOrgRepository,
        members: MockMemberDirectory,
        demo: bool,
    }

    impl Harness {
        fn tools(self) -> PlatformTools {
            PlatformTools::new(
                PlatformToolsPorts {
                    apps: Arc::new(self.apps),
                    maintenance: Arc::new(self.maintenance),
                    admins: Arc::new(self.admins),
                    profiles: Arc::new(self.profiles),
                    orgs: Arc::new(self.orgs),
                    members: Arc::new(self.members),
                    clock: Arc::new(fixed_clock()),
                    secrets: Arc::new(RepeatingBytes(0xab)),
                },
                PlatformToolsConfig { demo: self.demo },
            )
        }
    }

    fn entry(email: &str, role: PlatformRole, bound: bool) -> PlatformAdmin {
        PlatformAdmin {
            email: EmailAddress::parse(email).unwrap(),
            user_id: bound.then(UserId::new),
            role,
            added_at: noon(),
            added_by: None,
        }
    }

    #[test]
    fn reviewers_see_the_role_counts_and_developers_do_not() {
        let mut h = Harness::default();
        h.admins.expect_list().returning(|| {
            Ok(vec![
                entry("a@x.io", PlatformRole::Admin, true),
                entry("b@x.io", PlatformRole::Admin, false),
                entry("c@x.io", PlatformRole::Reviewer, true),
            ])
        });
        let tools = h.tools();
        let counts = block_on(tools.role_counts(&reviewer())).unwrap();
        assert_eq!(
            counts,
            RoleCounts {
                admins: 2,
                reviewers: 1,
                pending: 1
            }
        );
        assert!(matches!(
            block_on(tools.role_counts(&developer())),
            Err(PlatformToolsError::ReviewersOnly)
        ));
    }

    #[test]
    fn reviewers_may_not_use_the_maintenance_tools() {
        let tools = Harness {
            demo: true,
            ..Harness::default()
        }
        .tools();
        for caller in [reviewer(), developer()] {
            assert!(matches!(
                block_on(tools.debug(&caller)),
                Err(PlatformToolsError::AdminsOnly)
            ));
            assert!(matches!(
                block_on(tools.fix_app_statuses(&caller)),
                Err(PlatformToolsError::AdminsOnly)
            ));
            let err = block_on(tools.create_test_submission(&caller, None)).unwrap_err();
            assert_eq!(err.to_string(), ADMINS_ONLY);
        }
    }

    #[test]
    fn the_debug_report_names_unknown_statuses_and_submissions_nobody_would_hear_about() {
        let (acme, silent) = (OrgId::new(), OrgId::new());
        let mut h = Harness::default();
        h.maintenance.expect_stored_status_counts().returning(|| {
            Ok(BTreeMap::from([
                ("DEVELOPMENT".to_owned(), 2),
                ("SUBMITTED".to_owned(), 2),
                ("development".to_owned(), 3),
                ("ARCHIVED".to_owned(), 1),
            ]))
        });
        h.apps.expect_admin_list_by_status().returning(move |_| {
            let mut quiet = sample_app(silent, AppStoreStatus::Submitted);
            quiet.package_name = PackageName::parse("com.example.quiet").unwrap();
            Ok(vec![sample_app(acme, AppStoreStatus::Submitted), quiet])
        });
        h.profiles.expect_profile().times(2).returning(move |org| {
            Ok(Some(OrgContact {
                name: "Org".into(),
                contact_email: (org == acme).then(|| EmailAddress::parse("ops@acme.example").unwrap()),
                logo: None,
            }))
        });
        h.admins
            .expect_list()
            .returning(|| Ok(vec![entry("a@x.io", PlatformRole::Admin, true)]));
        let report = block_on(h.tools().debug(&admin())).unwrap();
        assert_eq!(report.unknown_statuses, 4);
        assert_eq!(
            report.submitted_without_contact,
            vec![PackageName::parse("com.example.quiet").unwrap()]
        );
        assert_eq!(report.roles.admins, 1);
        assert!(!report.demo);
    }

    #[test]
    fn fixing_statuses_rewrites_them_now() {
        let mut h = Harness::default();
        h.maintenance
            .expect_normalise_store_statuses()
            .withf(|at| *at == noon())
            .times(1)
            .returning(|_| Ok(vec![PackageName::parse("com.example.old").unwrap()]));
        let fixed = block_on(h.tools().fix_app_statuses(&admin())).unwrap();
        assert_eq!(fixed.len(), 1);
    }

    #[test]
    fn test_submissions_need_demo_mode() {
        let err = block_on(Harness::default().tools().create_test_submission(&admin(), None)).unwrap_err();
        assert!(matches!(err, PlatformToolsError::DemoOff));
        assert_eq!(err.code(), "NOT_FOUND");
    }

    #[test]
    fn a_test_submission_goes_into_a_named_organization_of_the_callers_only() {
        let mut h = Harness {
            demo: true,
            ..Harness::default()
        };
        h.members.expect_role_of().returning(|_, _| Ok(None));
        let err = block_on(h.tools().create_test_submission(&admin(), Some(OrgId::new()))).unwrap_err();
        assert!(matches!(err, PlatformToolsError::NotMember));

        let mut lonely = Harness {
            demo: true,
            ..Harness::default()
        };
        lonely.orgs.expect_list_for_user().returning(|_| Ok(Vec::new()));
        let err = block_on(lonely.tools().create_test_submission(&admin(), None)).unwrap_err();
        assert!(matches!(err, PlatformToolsError::NoOrganization));
    }

    #[test]
    fn a_test_submission_is_registered_then_submitted_with_its_event() {
        let org = OrgId::new();
        let who = admin();
        let actor = who.user_id;
        let mut h = Harness {
            demo: true,
            ..Harness::default()
        };
        h.members
            .expect_role_of()
            .returning(|_, _| Ok(Some(OrgRole::Member)));
        h.apps
            .expect_insert()
            .withf(move |app, hash, _| {
                app.org_id == org
                    && app.app_store_status == AppStoreStatus::Development
                    && app.public_url == TEST_SUBMISSION_URL
                    && app
                        .package_name
                        .as_str()
                        .starts_with("com.example.test-submission-")
                    && hash.len() == 64
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        h.apps
            .expect_transition()
            .withf(move |o, _, from, change| {
                *o == org
                    && *from == AppStoreStatus::Development
                    && change.to == AppStoreStatus::Submitted
                    && change.event.kind == ReviewEventKind::Submitted
                    && change.event.actor == actor
                    && change.event.detail == Some(json!({"testSubmission": true}))
                    && change.emails.is_empty()
            })
            .times(1)
            .returning(|o, _, _, change| Ok(sample_app(o, change.to)));
        let app = block_on(h.tools().create_test_submission(&who, Some(org))).unwrap();
        assert_eq!(app.app_store_status, AppStoreStatus::Submitted);
    }
}
