//! A reviewer's decision: approve or reject the revision the reviewer saw, recorded with the review event,
//! the audit entry and the e-mail to the organization's contact in one write.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::{Decision, ReviewError, ReviewService, SELF_REVIEW, for_staff, write_error};
use crate::apps::ports::{ReviewStamp, StatusChange};
use crate::apps::status::RejectError;
use crate::apps::{App, AppStoreStatus, PackageName};
use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::Caller;
use crate::review::emails::{approved_email, rejected_email};
use crate::review::models::{REVIEWED, reviewed_snapshot};
use crate::review::{ReviewEvent, ReviewEventKind};

impl ReviewService {
    /// SUBMITTED → PUBLISHED, with optional notes, provided the app is still the revision the reviewer saw;
    /// e-mails the organization's contact. A reviewer who is a member of the app's organization may
    /// decide: the event records it as a self-review.
    ///
    /// # Errors
    /// [`ReviewError::Forbidden`]; [`ReviewError::NotFound`]; [`ReviewError::IllegalTransition`] when the
    /// app is not SUBMITTED; [`ReviewError::Stale`] when it changed since the reviewer saw it;
    /// [`ReviewError::Conflict`] when another decision came first; [`ReviewError::Repo`].
    pub async fn approve(
        &self,
        caller: &Caller,
        package: &PackageName,
        decision: Decision<'_>,
    ) -> Result<App, ReviewError> {
        Self::require_reviewer(caller)?;
        let app = self.staff_app(package).await?;
        let to = app.app_store_status.approve()?;
        Self::require_seen(&app, decision.seen)?;
        let notes = decision
            .notes
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
        let emails = match self.contact_of(&app).await? {
            Some(to) => vec![approved_email(
                to,
                &app,
                notes.as_deref(),
                &self.config.portal_url,
            )],
            None => Vec::new(),
        };
        self.decide(
            caller,
            &app,
            decision.seen,
            to,
            ReviewEventKind::Approved,
            notes,
            emails,
        )
        .await
    }

    /// SUBMITTED → REJECTED, with required notes, provided the app is still the revision the reviewer saw;
    /// e-mails the organization's contact. A self-review is recorded as such (see [`Self::approve`]).
    ///
    /// # Errors
    /// [`ReviewError::Forbidden`]; [`ReviewError::NotesRequired`] when the notes are blank;
    /// [`ReviewError::NotFound`]; [`ReviewError::IllegalTransition`] when the app is not SUBMITTED;
    /// [`ReviewError::Stale`] when it changed since the reviewer saw it; [`ReviewError::Conflict`] when
    /// another decision came first; [`ReviewError::Repo`].
    pub async fn reject(
        &self,
        caller: &Caller,
        package: &PackageName,
        decision: Decision<'_>,
    ) -> Result<App, ReviewError> {
        Self::require_reviewer(caller)?;
        if decision.notes.is_none_or(|n| n.trim().is_empty()) {
            return Err(ReviewError::NotesRequired);
        }
        let app = self.staff_app(package).await?;
        let (to, notes) = app.app_store_status.reject(decision.notes).map_err(|e| match e {
            RejectError::NotesRequired => ReviewError::NotesRequired,
            RejectError::Illegal(illegal) => ReviewError::IllegalTransition(illegal),
        })?;
        Self::require_seen(&app, decision.seen)?;
        let emails = match self.contact_of(&app).await? {
            Some(to) => vec![rejected_email(to, &app, &notes, &self.config.portal_url)],
            None => Vec::new(),
        };
        self.decide(
            caller,
            &app,
            decision.seen,
            to,
            ReviewEventKind::Rejected,
            Some(notes),
            emails,
        )
        .await
    }

    /// The revision check before writing (the repository checks it again inside the write). Stored times
    /// have millisecond precision, so the comparison is in milliseconds.
    fn require_seen(app: &App, seen: DateTime<Utc>) -> Result<(), ReviewError> {
        if app.updated_at.timestamp_millis() == seen.timestamp_millis() {
            Ok(())
        } else {
            Err(ReviewError::Stale)
        }
    }

    async fn contact_of(&self, app: &App) -> Result<Option<crate::common::EmailAddress>, ReviewError> {
        Ok(self.orgs.profile(app.org_id).await?.and_then(|p| p.contact_email))
    }

    #[allow(clippy::too_many_arguments)]
    async fn decide(
        &self,
        caller: &Caller,
        app: &App,
        seen: DateTime<Utc>,
        to: AppStoreStatus,
        kind: ReviewEventKind,
        notes: Option<String>,
        emails: Vec<crate::mail::OutgoingEmail>,
    ) -> Result<App, ReviewError> {
        let now = self.clock.now();
        let mut event =
            ReviewEvent::new(self.secrets.as_ref(), app, kind, caller, now).with_notes(notes.clone());
        // A review by a member of the app's own organization is allowed, and recorded as a self-review
        // (PRODUCT.md §4).
        // What the reviewer decided on, so that the next review can show what changed since.
        let mut detail = json!({ REVIEWED: reviewed_snapshot(app) });
        if self.is_member(caller, app.org_id).await? {
            detail[SELF_REVIEW] = json!(true);
        }
        event = event.with_detail(detail);
        let action = if kind == ReviewEventKind::Approved {
            AuditAction::ReviewApproved
        } else {
            AuditAction::ReviewRejected
        };
        let audit = AuditEntry::by(self.secrets.as_ref(), caller, action, now)
            .in_org(app.org_id)
            .on(AuditTarget::app(&app.package_name))
            .change("appStoreStatus", app.app_store_status.code(), to.code())
            .change("reviewNotes", serde_json::Value::Null, notes.clone());
        let change = StatusChange {
            to,
            review: Some(ReviewStamp {
                notes,
                reviewed_by: caller.email.to_string(),
                reviewed_at: now,
            }),
            at: now,
            event,
            emails,
            audit: vec![audit],
        };
        self.reviews
            .decide(&app.package_name, AppStoreStatus::Submitted, seen, change)
            .await
            .map(for_staff)
            .map_err(write_error)
    }
}
