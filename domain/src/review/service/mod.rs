//! The platform reviewers' use cases (PRODUCT.md §4, §5) and the review history as the developer sees it.
//!
//! The service is one struct whose use cases live by concern: `queue` (what reviewers and members read)
//! and `decisions` (approve, reject).

mod decisions;
mod queue;

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::models::SinceLastDecision;
use super::ports::REVISION_MOVED;
use super::{ReviewEvent, ReviewRepository, ReviewedApp};
use crate::apps::ports::{AppRepository, OrgProfileLookup};
use crate::apps::status::{IllegalTransition, REVIEW_NOTES_REQUIRED, StatusCounts};
use crate::apps::{App, AppStoreStatus, PackageName};
use crate::common::{Caller, Clock, OrgId, RepoError, SecretGenerator};
use crate::orgs::ports::MemberDirectory;

pub const REVIEWERS_ONLY: &str = "Only platform admins and reviewers can do this";
pub const NOT_A_MEMBER: &str = "You are not a member of this organization";
pub const APP_NOT_FOUND: &str = "App not found";
pub const STATUS_CHANGED: &str = "The app's status changed meanwhile. Please reload and try again.";
pub const APP_CHANGED: &str = "The app changed since you opened it";

pub use super::models::SELF_REVIEW;

/// Whether platform staff may see `app`: only one submitted at least once (SUBMITTED, PUBLISHED, REJECTED),
/// never one still in its first development (PRODUCT.md §1).
#[must_use]
pub const fn staff_may_see(app: &App) -> bool {
    !matches!(app.app_store_status, AppStoreStatus::Development)
}

/// The app as platform staff see it: without its tester e-mail list (PRODUCT.md §1).
#[must_use]
pub fn for_staff(mut app: App) -> App {
    app.shared_with_emails = Vec::new();
    app
}

/// Whether `event` is a review by a member of the app's own organization (allowed, recorded and shown).
#[must_use]
pub fn is_self_review(event: &ReviewEvent) -> bool {
    event.is_self_review()
}

/// What the reviewer opens: the app with its organization's name, its review history (oldest first), and
/// whether the reviewer is a member of the app's organization (a decision would be a self-review).
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewView {
    pub reviewed: ReviewedApp,
    pub history: Vec<ReviewEvent>,
    pub self_review: bool,
    /// The reviewed fields changed since the last decision (or that this is the first review).
    pub since_last_decision: SinceLastDecision,
    /// The app's tester link, when its developers made one.
    pub tester_url: Option<String>,
}

/// The admin dashboard: counts per status and the newest submissions (newest first) with their
/// organizations' names.
#[derive(Debug, Clone, PartialEq)]
pub struct Dashboard {
    pub counts: StatusCounts,
    pub recent_submissions: Vec<ReviewedApp>,
}

/// A reviewer's decision: the notes, and the revision of the app the reviewer saw (its `updatedAt` as
/// read when the review dialog opened).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision<'a> {
    pub notes: Option<&'a str>,
    pub seen: DateTime<Utc>,
}

/// Settings of the review use cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewConfig {
    /// Base of links in e-mails (the portal's public URL).
    pub portal_url: String,
    /// Base of tester links (`{store_base_url}/install/{token}`), as the apps context builds them.
    pub store_base_url: String,
    /// How many submissions the dashboard's Recent Submissions list shows.
    pub recent_submissions: usize,
}

/// Errors of the review use cases; the doc of each variant names its HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// 403: the caller is not a platform admin or reviewer.
    #[error("{}", REVIEWERS_ONLY)]
    Forbidden,
    /// 403: the caller is not a member of the organization (developer history).
    #[error("{}", NOT_A_MEMBER)]
    NotMember,
    /// 404: no such app (for the developer: not in that organization).
    #[error("{}", APP_NOT_FOUND)]
    NotFound,
    /// 400: a rejection without notes.
    #[error("{}", REVIEW_NOTES_REQUIRED)]
    NotesRequired,
    /// 409: the app is not SUBMITTED.
    #[error(transparent)]
    IllegalTransition(#[from] IllegalTransition),
    /// 409: the status changed between reading and writing (another reviewer decided first).
    #[error("{}", STATUS_CHANGED)]
    Conflict,
    /// 409: the app changed since the reviewer opened it (its `updatedAt` is not the one the reviewer saw).
    #[error("{}", APP_CHANGED)]
    Stale,
    /// 500 (or 503).
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl ReviewError {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Forbidden | Self::NotMember => "FORBIDDEN",
            Self::NotFound => "NOT_FOUND",
            Self::NotesRequired => "REVIEW_NOTES_REQUIRED",
            Self::IllegalTransition(_) => "ILLEGAL_TRANSITION",
            Self::Conflict => "CONFLICT",
            Self::Stale => "APP_CHANGED",
            Self::Repo(_) => "INTERNAL",
        }
    }
}

fn write_error(error: RepoError) -> ReviewError {
    match error {
        RepoError::NotFound => ReviewError::NotFound,
        RepoError::Conflict(what) if what == REVISION_MOVED => ReviewError::Stale,
        RepoError::Conflict(_) => ReviewError::Conflict,
        other => ReviewError::Repo(other),
    }
}

/// The review use cases.
pub struct ReviewService {
    apps: Arc<dyn AppRepository>,
    reviews: Arc<dyn ReviewRepository>,
    orgs: Arc<dyn OrgProfileLookup>,
    members: Arc<dyn MemberDirectory>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: ReviewConfig,
}

impl ReviewService {
    #[must_use]
    pub fn new(
        apps: Arc<dyn AppRepository>,
        reviews: Arc<dyn ReviewRepository>,
        orgs: Arc<dyn OrgProfileLookup>,
        members: Arc<dyn MemberDirectory>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        config: ReviewConfig,
    ) -> Self {
        Self {
            apps,
            reviews,
            orgs,
            members,
            clock,
            secrets,
            config,
        }
    }

    fn require_reviewer(caller: &Caller) -> Result<(), ReviewError> {
        if caller.can_review() {
            Ok(())
        } else {
            Err(ReviewError::Forbidden)
        }
    }

    /// An app platform staff may see ([`staff_may_see`]), as they see it ([`for_staff`]); any other app is
    /// not found.
    async fn staff_app(&self, package: &PackageName) -> Result<App, ReviewError> {
        self.apps
            .admin_get(package)
            .await?
            .filter(staff_may_see)
            .map(for_staff)
            .ok_or(ReviewError::NotFound)
    }

    async fn is_member(&self, caller: &Caller, org: OrgId) -> Result<bool, ReviewError> {
        Ok(self.members.role_of(org, caller.user_id).await?.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::ports::StatusChange;
    use crate::apps::ports::{MockAppRepository, MockOrgProfileLookup, OrgContact};
    use crate::apps::service::fixtures::{developer, members, package, reviewer, sample_app};
    use crate::common::EmailAddress;
    use crate::mail::EmailKind;
    use crate::orgs::ActingMember;
    use crate::orgs::OrgRole;
    use crate::review::ReviewEventKind;
    use crate::review::models::{REVIEWED, reviewed_snapshot, since_last_decision};
    use crate::review::ports::MockReviewRepository;
    use crate::review::{APP_REVIEW, HistoryActor};
    use crate::testing::{RepeatingBytes, block_on, fixed_clock, noon};
    use chrono::Duration;
    use serde_json::json;

    struct Harness {
        apps: MockAppRepository,
        reviews: MockReviewRepository,
        orgs: MockOrgProfileLookup,
        role: Option<OrgRole>,
    }

    impl Harness {
        fn new() -> Self {
            Self {
                apps: MockAppRepository::new(),
                reviews: MockReviewRepository::new(),
                orgs: MockOrgProfileLookup::new(),
                role: None,
            }
        }

        fn with_app(mut self, status: AppStoreStatus) -> Self {
            self.apps
                .expect_admin_get()
                .returning(move |_| Ok(Some(sample_app(OrgId::new(), status))));
            self
        }

        fn with_contact(mut self, email: Option<&str>) -> Self {
            let email = email.map(|e| EmailAddress::parse(e).unwrap());
            self.orgs.expect_profile().returning(move |_| {
                Ok(Some(OrgContact {
                    name: "Acme".into(),
                    contact_email: email.clone(),
                    logo: None,
                }))
            });
            self
        }

        fn service(self) -> ReviewService {
            ReviewService::new(
                Arc::new(self.apps),
                Arc::new(self.reviews),
                Arc::new(self.orgs),
                Arc::new(members(self.role)),
                Arc::new(fixed_clock()),
                Arc::new(RepeatingBytes(0x22)),
                ReviewConfig {
                    portal_url: "https://portal.example.com".into(),
                    store_base_url: "https://store.example.com".into(),
                    recent_submissions: 2,
                },
            )
        }
    }

    fn seen(notes: Option<&str>) -> Decision<'_> {
        Decision { notes, seen: noon() }
    }

    fn echo_transition(
        reviews: &mut MockReviewRepository,
        check: impl Fn(&StatusChange) -> bool + Send + Sync + 'static,
    ) {
        reviews
            .expect_decide()
            .withf(move |_, expected, seen, change| {
                *expected == AppStoreStatus::Submitted && *seen == noon() && check(change)
            })
            .times(1)
            .returning(|_, _, _, change| {
                let mut app = sample_app(change.event.org_id, change.to);
                app.review_notes = change.review.as_ref().and_then(|r| r.notes.clone());
                Ok(app)
            });
    }

    #[test]
    fn a_developer_cannot_use_the_review_tools() {
        let svc = Harness::new().service();
        let who = developer();
        assert!(matches!(block_on(svc.stats(&who)), Err(ReviewError::Forbidden)));
        assert!(matches!(
            block_on(svc.submitted(&who)),
            Err(ReviewError::Forbidden)
        ));
        assert!(matches!(
            block_on(svc.approve(&who, &package(), seen(None))),
            Err(ReviewError::Forbidden)
        ));
        let err = block_on(svc.reject(&who, &package(), seen(Some("no")))).unwrap_err();
        assert_eq!(err.to_string(), REVIEWERS_ONLY);
    }

    #[test]
    fn the_dashboard_shows_counts_and_the_newest_submissions_first() {
        let mut h = Harness::new();
        h.apps.expect_admin_counts().returning(|| {
            Ok(StatusCounts {
                development: 5,
                submitted: 3,
                published: 2,
                rejected: 1,
            })
        });
        h.apps
            .expect_admin_list_by_status()
            .withf(|s| *s == AppStoreStatus::Submitted)
            .returning(|_| {
                Ok((0..3)
                    .map(|i| {
                        let mut app = sample_app(OrgId::new(), AppStoreStatus::Submitted);
                        app.name = format!("app {i}");
                        app.updated_at = noon() + Duration::minutes(i);
                        app
                    })
                    .collect())
            });
        let stats = block_on(h.service().stats(&reviewer())).unwrap();
        assert_eq!(stats.counts.total(), 11);
        let names: Vec<_> = stats.recent_submissions.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["app 2", "app 1"]);
    }

    #[test]
    fn the_dashboard_names_the_organizations_of_the_newest_submissions() {
        let mut h = Harness::new();
        h.apps.expect_admin_counts().returning(|| {
            Ok(StatusCounts {
                submitted: 3,
                ..StatusCounts::default()
            })
        });
        h.apps.expect_admin_list_by_status().returning(|_| {
            Ok((0..3)
                .map(|i| {
                    let mut app = sample_app(OrgId::new(), AppStoreStatus::Submitted);
                    app.name = format!("app {i}");
                    app.updated_at = noon() + Duration::minutes(i);
                    app
                })
                .collect())
        });
        h.orgs.expect_profile().returning(|_| {
            Ok(Some(OrgContact {
                name: "Acme".into(),
                contact_email: None,
                logo: None,
            }))
        });
        let dashboard = block_on(h.service().dashboard(&reviewer())).unwrap();
        assert_eq!(dashboard.counts.submitted, 3);
        let names: Vec<_> = dashboard
            .recent_submissions
            .iter()
            .map(|r| (r.app.name.as_str(), r.organization_name.as_deref()))
            .collect();
        assert_eq!(names, [("app 2", Some("Acme")), ("app 1", Some("Acme"))]);
        assert!(matches!(
            block_on(Harness::new().service().dashboard(&developer())),
            Err(ReviewError::Forbidden)
        ));
    }

    #[test]
    fn the_queue_names_each_organization_looking_each_up_once() {
        let org = OrgId::new();
        let mut h = Harness::new();
        h.apps
            .expect_admin_list_by_status()
            .returning(move |_| Ok(vec![sample_app(org, AppStoreStatus::Submitted); 2]));
        h.orgs.expect_profile().times(1).returning(|_| {
            Ok(Some(OrgContact {
                name: "Acme".into(),
                contact_email: None,
                logo: None,
            }))
        });
        let queue = block_on(h.service().submitted(&reviewer())).unwrap();
        assert_eq!(queue.len(), 2);
        assert!(
            queue
                .iter()
                .all(|r| r.organization_name.as_deref() == Some("Acme"))
        );
    }

    #[test]
    fn the_review_dialog_names_the_developer_by_organization_else_by_id() {
        let mut h = Harness::new().with_app(AppStoreStatus::Submitted);
        h.orgs.expect_profile().returning(|_| Ok(None));
        let reviewed = block_on(h.service().app(&reviewer(), &package())).unwrap();
        assert_eq!(reviewed.developer_label(), reviewed.app.developer_id.to_string());
        let named = ReviewedApp {
            organization_name: Some("Acme".into()),
            ..reviewed
        };
        assert_eq!(named.developer_label(), "Acme");
    }

    #[test]
    fn approving_stamps_the_review_records_it_and_emails_the_contact() {
        let who = reviewer();
        let actor = who.user_id;
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(Some("ops@acme.example"));
        echo_transition(&mut h.reviews, move |change| {
            let stamp = change.review.as_ref().unwrap();
            change.to == AppStoreStatus::Published
                && stamp.notes.as_deref() == Some("Looks great")
                && stamp.reviewed_by == "reviewer@portal.example.com"
                && stamp.reviewed_at == noon()
                && change.event.kind == ReviewEventKind::Approved
                && change.event.actor == actor
                && change.emails.len() == 1
                && change.emails[0].kind == EmailKind::AppApproved
                && change.emails[0].to.as_str() == "ops@acme.example"
        });
        let app = block_on(h.service().approve(&who, &package(), seen(Some(" Looks great ")))).unwrap();
        assert_eq!(app.app_store_status, AppStoreStatus::Published);
    }

    #[test]
    fn approving_with_blank_notes_stores_no_notes() {
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(Some("ops@acme.example"));
        echo_transition(&mut h.reviews, |change| {
            change.review.as_ref().is_some_and(|r| r.notes.is_none()) && change.event.notes.is_none()
        });
        block_on(h.service().approve(&reviewer(), &package(), seen(Some("  ")))).unwrap();
    }

    #[test]
    fn without_a_contact_email_the_decision_sends_nothing() {
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(None);
        echo_transition(&mut h.reviews, |change| change.emails.is_empty());
        block_on(h.service().approve(&reviewer(), &package(), seen(None))).unwrap();
    }

    #[test]
    fn only_a_submitted_app_can_be_approved_by_a_reviewer() {
        let h = Harness::new().with_app(AppStoreStatus::Published);
        let err = block_on(h.service().approve(&reviewer(), &package(), seen(None))).unwrap_err();
        assert!(matches!(err, ReviewError::IllegalTransition(_)));
        assert_eq!(err.code(), "ILLEGAL_TRANSITION");
    }

    #[test]
    fn approving_an_unknown_app_is_not_found() {
        let mut h = Harness::new();
        h.apps.expect_admin_get().returning(|_| Ok(None));
        let err = block_on(h.service().approve(&reviewer(), &package(), seen(None))).unwrap_err();
        assert_eq!(err.to_string(), "App not found");
    }

    #[test]
    fn a_rejection_needs_notes_and_reads_nothing_without_them() {
        let svc = Harness::new().service();
        for notes in [None, Some(""), Some("   ")] {
            let err = block_on(svc.reject(&reviewer(), &package(), seen(notes))).unwrap_err();
            assert!(matches!(err, ReviewError::NotesRequired), "{notes:?}");
            assert_eq!(err.code(), "REVIEW_NOTES_REQUIRED");
        }
    }

    #[test]
    fn rejecting_records_the_notes_and_emails_them_to_the_contact() {
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(Some("ops@acme.example"));
        echo_transition(&mut h.reviews, |change| {
            change.to == AppStoreStatus::Rejected
                && change.event.kind == ReviewEventKind::Rejected
                && change.event.notes.as_deref() == Some("Logo is blurry")
                && change.emails[0].kind == EmailKind::AppRejected
                && change.emails[0].text.contains("Logo is blurry")
        });
        let app = block_on(
            h.service()
                .reject(&reviewer(), &package(), seen(Some("Logo is blurry\n"))),
        )
        .unwrap();
        assert_eq!(app.review_notes.as_deref(), Some("Logo is blurry"));
    }

    #[test]
    fn a_decision_that_loses_the_race_to_another_reviewer_is_a_conflict() {
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(None);
        h.reviews
            .expect_decide()
            .returning(|_, _, _, _| Err(RepoError::Conflict("status".into())));
        let err = block_on(h.service().reject(&reviewer(), &package(), seen(Some("no")))).unwrap_err();
        assert!(matches!(err, ReviewError::Conflict));
    }

    #[test]
    fn a_decision_on_a_revision_the_reviewer_did_not_see_is_stale_and_writes_nothing() {
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(Some("ops@acme.example"));
        h.reviews.expect_decide().never();
        let svc = h.service();
        let older = Decision {
            notes: Some("fine"),
            seen: noon() - Duration::seconds(5),
        };
        let err = block_on(svc.approve(&reviewer(), &package(), older)).unwrap_err();
        assert!(matches!(err, ReviewError::Stale));
        assert_eq!(err.to_string(), "The app changed since you opened it");
        assert_eq!(err.code(), "APP_CHANGED");
        assert!(matches!(
            block_on(svc.reject(&reviewer(), &package(), older)),
            Err(ReviewError::Stale)
        ));
    }

    #[test]
    fn the_revision_is_compared_at_the_stored_millisecond_precision() {
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(None);
        h.reviews
            .expect_decide()
            .times(1)
            .returning(|_, _, _, change| Ok(sample_app(change.event.org_id, change.to)));
        let within = Decision {
            notes: None,
            seen: noon() + Duration::microseconds(300),
        };
        block_on(h.service().approve(&reviewer(), &package(), within)).unwrap();
    }

    #[test]
    fn a_write_that_finds_another_revision_is_stale() {
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(None);
        h.reviews
            .expect_decide()
            .returning(|_, _, _, _| Err(RepoError::Conflict(super::REVISION_MOVED.into())));
        let err = block_on(h.service().approve(&reviewer(), &package(), seen(None))).unwrap_err();
        assert!(matches!(err, ReviewError::Stale));
    }

    #[test]
    fn a_review_by_a_member_of_the_apps_organization_is_recorded_as_a_self_review() {
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(None);
        h.role = Some(OrgRole::Member);
        echo_transition(&mut h.reviews, |change| {
            is_self_review(&change.event)
                && change.event.shown_detail() == Some(serde_json::json!({"selfReview": true}))
        });
        block_on(h.service().approve(&reviewer(), &package(), seen(None))).unwrap();

        let mut outsider = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(None);
        echo_transition(&mut outsider.reviews, |change| {
            !is_self_review(&change.event) && change.event.shown_detail().is_none()
        });
        block_on(
            outsider
                .service()
                .reject(&reviewer(), &package(), seen(Some("no"))),
        )
        .unwrap();
    }

    #[test]
    fn the_review_dialog_has_the_history_and_says_whether_it_would_be_a_self_review() {
        let mut h = Harness::new()
            .with_app(AppStoreStatus::Submitted)
            .with_contact(None);
        h.role = Some(OrgRole::Admin);
        h.reviews.expect_admin_history().returning(|_| Ok(Vec::new()));
        h.apps
            .expect_share_token()
            .returning(|_, _| Ok(Some("ab".repeat(32))));
        let view = block_on(h.service().review_view(&reviewer(), &package())).unwrap();
        assert!(view.self_review);
        assert_eq!(view.reviewed.organization_name.as_deref(), Some("Acme"));
        assert_eq!(view.since_last_decision, SinceLastDecision::FirstReview);
        assert_eq!(
            view.tester_url.as_deref(),
            Some(format!("https://store.example.com/install/{}", "ab".repeat(32)).as_str())
        );
        assert!(matches!(
            block_on(Harness::new().service().review_view(&developer(), &package())),
            Err(ReviewError::Forbidden)
        ));
    }

    #[test]
    fn a_decision_records_what_it_saw_and_the_next_review_shows_what_changed_since() {
        let org = OrgId::new();
        let decided_on = sample_app(org, AppStoreStatus::Rejected);
        let event = |kind, detail: Option<serde_json::Value>| {
            let event = ReviewEvent::new(&RepeatingBytes(3), &decided_on, kind, &reviewer(), noon());
            match detail {
                Some(detail) => event.with_detail(detail),
                None => event,
            }
        };
        let submitted = event(ReviewEventKind::Submitted, None);
        assert_eq!(
            since_last_decision(&decided_on, std::slice::from_ref(&submitted)),
            SinceLastDecision::FirstReview
        );
        let unrecorded = event(ReviewEventKind::Rejected, Some(json!({ SELF_REVIEW: true })));
        assert_eq!(
            since_last_decision(&decided_on, &[submitted.clone(), unrecorded]),
            SinceLastDecision::NotRecorded
        );

        let rejected = event(
            ReviewEventKind::Rejected,
            Some(json!({ REVIEWED: reviewed_snapshot(&decided_on) })),
        );
        let history = vec![submitted, rejected];
        assert_eq!(
            since_last_decision(&decided_on, &history),
            SinceLastDecision::Changed(Vec::new())
        );
        let mut resubmitted = decided_on.clone();
        resubmitted.description = "Takes better notes".into();
        resubmitted.public_url = "https://notes2.example.com".into();
        resubmitted.updated_at = noon() + Duration::hours(1);
        let since = since_last_decision(&resubmitted, &history);
        assert_eq!(since.changed_fields(), vec!["description", "publicUrl"]);
        let SinceLastDecision::Changed(changes) = since else {
            panic!("compared: {since:?}");
        };
        assert_eq!(
            (&changes[0].old, &changes[0].new),
            (&json!(decided_on.description), &json!("Takes better notes"))
        );
        assert_eq!(
            (&changes[1].old, &changes[1].new),
            (
                &json!(decided_on.public_url),
                &json!("https://notes2.example.com")
            )
        );
        // Readers of the history never see the snapshot.
        assert_eq!(history[1].shown_detail(), None);
    }

    #[test]
    fn members_read_their_apps_history() {
        let org = OrgId::new();
        let mut h = Harness::new();
        h.reviews.expect_history().returning(|_, _| Ok(Some(Vec::new())));
        let member = acting(org, OrgRole::Member);
        assert_eq!(
            block_on(h.service().history(&member, &package())).unwrap(),
            Vec::new()
        );
    }

    #[test]
    fn developers_see_app_review_for_a_reviewers_decision_and_staff_see_who() {
        let org = OrgId::new();
        let app = sample_app(org, AppStoreStatus::Rejected);
        let event = |kind, caller: &Caller, self_review: bool| {
            let event = ReviewEvent::new(&RepeatingBytes(7), &app, kind, caller, noon());
            if self_review {
                event.with_detail(json!({ SELF_REVIEW: true }))
            } else {
                event
            }
        };
        let events = vec![
            event(ReviewEventKind::Submitted, &developer(), false),
            event(ReviewEventKind::Rejected, &reviewer(), false),
            event(ReviewEventKind::Approved, &reviewer(), true),
        ];
        let mut h = Harness::new();
        let stored = events.clone();
        h.reviews
            .expect_history()
            .returning(move |_, _| Ok(Some(stored.clone())));
        let stored = events;
        h.reviews
            .expect_admin_history()
            .returning(move |_| Ok(stored.clone()));
        h.apps
            .expect_admin_get()
            .returning(move |_| Ok(Some(sample_app(org, AppStoreStatus::Rejected))));
        let svc = h.service();

        let seen = block_on(svc.history(&acting(org, OrgRole::Member), &package())).unwrap();
        let names: Vec<&str> = seen.iter().map(|e| e.actor.display_name()).collect();
        // A decision by a reviewer from outside is "App Review"; a self-review names the member.
        assert_eq!(
            names,
            ["dev@example.com", APP_REVIEW, "reviewer@portal.example.com"]
        );
        assert_eq!(seen[1].actor, HistoryActor::AppReview);
        assert!(seen[2].self_review);

        let staff = block_on(svc.admin_history(&reviewer(), &package())).unwrap();
        assert_eq!(staff[1].actor_email.as_str(), "reviewer@portal.example.com");
    }

    /// The caller acting in `org` with `role`, as the request's one membership read answered.
    fn acting(org: OrgId, role: OrgRole) -> ActingMember {
        block_on(ActingMember::resolve(
            crate::orgs::StandingSource::Directory(&members(Some(role)), org),
            developer(),
            crate::orgs::SecondFactor::NotPassed,
            crate::orgs::Door::Act,
        ))
        .unwrap()
        .unwrap()
    }

    #[test]
    fn the_history_of_an_app_outside_the_organization_is_not_found() {
        let mut h = Harness::new();
        h.reviews.expect_history().returning(|_, _| Ok(None));
        let member = acting(OrgId::new(), OrgRole::Admin);
        let err = block_on(h.service().history(&member, &package())).unwrap_err();
        assert!(matches!(err, ReviewError::NotFound));
    }

    #[test]
    fn staff_see_no_app_still_in_its_first_development() {
        let svc = Harness::new()
            .with_app(AppStoreStatus::Development)
            .with_contact(Some("team@acme.example.com"))
            .service();
        let who = reviewer();
        assert!(matches!(
            block_on(svc.app(&who, &package())),
            Err(ReviewError::NotFound)
        ));
        assert!(matches!(
            block_on(svc.review_view(&who, &package())),
            Err(ReviewError::NotFound)
        ));
        assert!(matches!(
            block_on(svc.admin_history(&who, &package())),
            Err(ReviewError::NotFound)
        ));
        // Not even a 409 that would tell the app exists.
        assert!(matches!(
            block_on(svc.approve(&who, &package(), seen(None))),
            Err(ReviewError::NotFound)
        ));
        assert!(matches!(
            block_on(svc.reject(&who, &package(), seen(Some("no")))),
            Err(ReviewError::NotFound)
        ));
    }

    #[test]
    fn staff_see_submitted_published_and_rejected_apps_without_their_testers() {
        for status in [
            AppStoreStatus::Submitted,
            AppStoreStatus::Published,
            AppStoreStatus::Rejected,
        ] {
            let mut h = Harness::new().with_contact(None);
            h.apps.expect_admin_get().returning(move |_| {
                let mut app = sample_app(OrgId::new(), status);
                app.shared_with_emails = vec![EmailAddress::parse("tester@example.com").unwrap()];
                Ok(Some(app))
            });
            h.reviews.expect_admin_history().returning(|_| Ok(Vec::new()));
            h.apps.expect_share_token().returning(|_, _| Ok(None));
            let view = block_on(h.service().review_view(&reviewer(), &package())).unwrap();
            assert_eq!(view.reviewed.app.app_store_status, status);
            assert!(view.reviewed.app.shared_with_emails.is_empty(), "{status:?}");
        }
    }

    #[test]
    fn the_queue_and_a_decision_answer_no_tester_list() {
        let mut h = Harness::new().with_contact(None);
        let with_testers = |status| {
            let mut app = sample_app(OrgId::new(), status);
            app.shared_with_emails = vec![EmailAddress::parse("tester@example.com").unwrap()];
            app
        };
        h.apps
            .expect_admin_list_by_status()
            .returning(move |_| Ok(vec![with_testers(AppStoreStatus::Submitted)]));
        h.apps
            .expect_admin_get()
            .returning(move |_| Ok(Some(with_testers(AppStoreStatus::Submitted))));
        h.apps
            .expect_admin_counts()
            .returning(|| Ok(StatusCounts::default()));
        h.reviews
            .expect_decide()
            .returning(move |_, _, _, change| Ok(with_testers(change.to)));
        let svc = h.service();
        let queue = block_on(svc.submitted(&reviewer())).unwrap();
        assert!(queue.iter().all(|r| r.app.shared_with_emails.is_empty()));
        let stats = block_on(svc.stats(&reviewer())).unwrap();
        assert!(
            stats
                .recent_submissions
                .iter()
                .all(|a| a.shared_with_emails.is_empty())
        );
        let approved = block_on(svc.approve(&reviewer(), &package(), seen(None))).unwrap();
        assert!(approved.shared_with_emails.is_empty());
    }

    #[test]
    fn reviewers_read_any_apps_history() {
        let mut h = Harness::new().with_app(AppStoreStatus::Published);
        h.reviews
            .expect_admin_history()
            .times(1)
            .returning(|_| Ok(Vec::new()));
        assert!(
            block_on(h.service().admin_history(&reviewer(), &package()))
                .unwrap()
                .is_empty()
        );
        assert!(matches!(
            block_on(Harness::new().service().admin_history(&developer(), &package())),
            Err(ReviewError::Forbidden)
        ));
    }
}
