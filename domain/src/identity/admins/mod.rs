//! Platform admins and reviewers (PRODUCT.md §1, §5; `GET /api/admin/check`, `GET|POST /api/admin/users`,
//! `DELETE /api/admin/users/{email}`).
//!
//! `isAdmin` of the check is true for both roles: a reviewer needs the Admin Panel to review apps and see
//! uptime; `role` says which. Only an `admin` grants and revokes. The platform always keeps at least one
//! bound `admin`: removing or demoting the last one is refused (409), checked here and again by the
//! repository in its transaction (two admins revoking each other at once cannot both succeed).
//!
//! Roles belong to accounts (see [`PlatformAdmin`]): the caller's role is looked up by account id. A role
//! given to an address binds at once only to an account that proved the address (or, at the command line,
//! to any account that has it: the operator vouches); otherwise it waits for the first account that proves
//! the address. Without that, whoever signs up first with an admin's address on a server that confirms
//! sign-ups at once (no mailer) would get the role.

pub mod setup;

use std::sync::Arc;

use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::email::INVALID_EMAIL;
use crate::common::{Caller, Clock, EmailAddress, PlatformRole, RepoError, SecretGenerator};
use crate::identity::errors::FieldErrors;
use crate::identity::models::{GrantBinding, PlatformAdmin, grant_for, would_leave_no_admin};
use crate::identity::ports::PlatformAdminRepository;

pub const ROLE_INVALID: &str = "Role must be admin or reviewer";
pub const LAST_ADMIN: &str = "You cannot remove the last platform admin. Add another admin first.";

/// The answer of `GET /api/admin/check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdminCheck {
    pub is_admin: bool,
    pub role: Option<PlatformRole>,
}

/// What the platform-admin use cases can fail with.
#[derive(Debug, thiserror::Error)]
pub enum PlatformAdminError {
    /// 403: the caller has no platform role (listing), or is not an `admin` (granting, revoking).
    #[error("Platform admin access required")]
    Forbidden,
    /// 400: a malformed e-mail (`email`) or role (`role`).
    #[error("{0}")]
    Validation(FieldErrors),
    /// 404: the e-mail has no platform role.
    #[error("Platform admin not found")]
    NotFound,
    /// 409: the change would leave the platform without an admin.
    #[error("{}", LAST_ADMIN)]
    LastAdmin,
    #[error(transparent)]
    Repo(RepoError),
}

impl PlatformAdminError {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Forbidden => "FORBIDDEN",
            Self::Validation(_) => "VALIDATION",
            Self::NotFound => "NOT_FOUND",
            Self::LastAdmin => "LAST_ADMIN",
            Self::Repo(_) => "INTERNAL",
        }
    }
}

impl From<RepoError> for PlatformAdminError {
    fn from(error: RepoError) -> Self {
        match error {
            RepoError::Conflict(_) => Self::LastAdmin,
            RepoError::NotFound => Self::NotFound,
            other => Self::Repo(other),
        }
    }
}

/// What seeding `PORTAL_ADMIN_EMAILS` did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SeedReport {
    /// The roles added now (addresses never seeded before that had no role).
    pub added: Vec<PlatformAdmin>,
    /// The configured addresses whose role still waits for an account to prove the address.
    pub pending: Vec<EmailAddress>,
}

/// Who changes a platform role, for its audit entry: a signed-in platform admin, or the server's operator
/// (an `app-server` command, the `PORTAL_ADMIN_EMAILS` setting), which is no account.
#[derive(Clone, Copy)]
enum Actor<'a> {
    Caller(&'a Caller),
    Operator,
}

/// Manages the platform-admin list. Every change records a platform audit entry in its transaction.
pub struct PlatformAdminService {
    admins: Arc<dyn PlatformAdminRepository>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
}

impl PlatformAdminService {
    #[must_use]
    pub fn new(
        admins: Arc<dyn PlatformAdminRepository>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
    ) -> Self {
        Self {
            admins,
            clock,
            secrets,
        }
    }

    /// The platform entry of `action` on the holder of `email`'s role, by `actor`, now.
    fn audit(&self, actor: Actor<'_>, action: AuditAction, email: &EmailAddress) -> AuditEntry {
        let now = self.clock.now();
        let entry = match actor {
            Actor::Caller(caller) => AuditEntry::by(self.secrets.as_ref(), caller, action, now),
            Actor::Operator => AuditEntry::by_operator(self.secrets.as_ref(), action, now),
        };
        entry.on(AuditTarget::platform_user(email.as_str()))
    }

    /// Whether the caller may open the Admin Panel, and with which role (already resolved on the caller).
    #[must_use]
    pub fn check(caller: &Caller) -> AdminCheck {
        AdminCheck {
            is_admin: caller.platform_role.is_some(),
            role: caller.platform_role,
        }
    }

    /// Everyone with a platform role. Only an `admin` may list (reviewers need not see who else reviews).
    ///
    /// # Errors
    /// [`PlatformAdminError::Forbidden`]; a store failure.
    pub async fn list(&self, caller: &Caller) -> Result<Vec<PlatformAdmin>, PlatformAdminError> {
        if !caller.can_manage_platform() {
            return Err(PlatformAdminError::Forbidden);
        }
        Ok(self.admins.list().await?)
    }

    /// Adds a platform admin or reviewer, or changes the role of one. Only an `admin` may. The role binds
    /// at once to an account that proved the address, else it waits for one to.
    ///
    /// # Errors
    /// [`PlatformAdminError::Forbidden`]; [`PlatformAdminError::Validation`]; [`PlatformAdminError::LastAdmin`]
    /// when demoting the last admin; a store failure.
    pub async fn grant(
        &self,
        caller: &Caller,
        email: &str,
        role: &str,
    ) -> Result<PlatformAdmin, PlatformAdminError> {
        if !caller.can_manage_platform() {
            return Err(PlatformAdminError::Forbidden);
        }
        self.upsert(
            Actor::Caller(caller),
            email,
            role,
            Some(caller.email.clone()),
            GrantBinding::ProvenAccount,
        )
        .await
    }

    /// Removes a platform admin or reviewer. Only an `admin` may; the last admin stays.
    ///
    /// # Errors
    /// [`PlatformAdminError::Forbidden`]; [`PlatformAdminError::NotFound`] (also for a malformed e-mail);
    /// [`PlatformAdminError::LastAdmin`]; a store failure.
    pub async fn revoke(&self, caller: &Caller, email: &str) -> Result<(), PlatformAdminError> {
        if !caller.can_manage_platform() {
            return Err(PlatformAdminError::Forbidden);
        }
        self.remove(Actor::Caller(caller), email).await
    }

    /// [`PlatformAdminService::grant`] for the operator at the command line (`app-server admin grant`):
    /// whoever can run the server binary against its database is trusted, so no caller is checked, and the
    /// role binds at once to the account that has the address, proven or not (the operator vouches for it).
    /// The same rules hold otherwise (valid e-mail and role, the last admin stays).
    ///
    /// # Errors
    /// As [`PlatformAdminService::grant`], without `Forbidden`.
    pub async fn operator_grant(&self, email: &str, role: &str) -> Result<PlatformAdmin, PlatformAdminError> {
        self.upsert(Actor::Operator, email, role, None, GrantBinding::AnyAccount)
            .await
    }

    /// [`PlatformAdminService::revoke`] for the operator at the command line (`app-server admin revoke`).
    ///
    /// # Errors
    /// As [`PlatformAdminService::revoke`], without `Forbidden`.
    pub async fn operator_revoke(&self, email: &str) -> Result<(), PlatformAdminError> {
        self.remove(Actor::Operator, email).await
    }

    /// Everyone with a platform role, for the operator at the command line (`app-server admin list`).
    ///
    /// # Errors
    /// A store failure.
    pub async fn operator_list(&self) -> Result<Vec<PlatformAdmin>, PlatformAdminError> {
        Ok(self.admins.list().await?)
    }

    async fn upsert(
        &self,
        actor: Actor<'_>,
        email: &str,
        role: &str,
        by: Option<EmailAddress>,
        binding: GrantBinding,
    ) -> Result<PlatformAdmin, PlatformAdminError> {
        let mut fields = FieldErrors::default();
        let email = EmailAddress::parse(email)
            .map_err(|_| fields.add("email", INVALID_EMAIL))
            .ok();
        let role = PlatformRole::parse(role.trim()).or_else(|| {
            fields.add("role", ROLE_INVALID);
            None
        });
        let (Some(email), Some(role)) = (email, role) else {
            return Err(PlatformAdminError::Validation(fields));
        };
        let admins = self.admins.list().await?;
        let current = grant_for(&admins, &email);
        if role != PlatformRole::Admin
            && current.is_some_and(|target| would_leave_no_admin(&admins, target, Some(role)))
        {
            return Err(PlatformAdminError::LastAdmin);
        }
        let audit = self
            .audit(actor, AuditAction::PlatformRoleGranted, &email)
            .change(
                "platformRole",
                current.map(|c| c.role.code().to_owned()),
                role.code(),
            );
        Ok(self
            .admins
            .grant(&email, role, by, binding, self.clock.now(), &audit)
            .await?)
    }

    async fn remove(&self, actor: Actor<'_>, email: &str) -> Result<(), PlatformAdminError> {
        let email = EmailAddress::parse(email).map_err(|_| PlatformAdminError::NotFound)?;
        let admins = self.admins.list().await?;
        let Some(target) = grant_for(&admins, &email) else {
            return Err(PlatformAdminError::NotFound);
        };
        if would_leave_no_admin(&admins, target, None) {
            return Err(PlatformAdminError::LastAdmin);
        }
        let audit = self
            .audit(actor, AuditAction::PlatformRoleRevoked, &email)
            .change("platformRole", target.role.code(), serde_json::Value::Null);
        Ok(self.admins.remove(&email, &audit).await?)
    }

    /// Makes each configured e-mail (`PORTAL_ADMIN_EMAILS`: separated by commas or white space) an `admin`
    /// once: an address seeded before is never added again (so a role revoked since stays revoked), and an
    /// address that has a role keeps it. The role binds to an account that proved the address, else waits
    /// for one. Answers what was added and which configured addresses still wait.
    ///
    /// # Errors
    /// [`PlatformAdminError::Validation`] (`emails`, naming the first bad entry) before anything is written;
    /// a store failure.
    pub async fn seed(&self, configured: &str) -> Result<SeedReport, PlatformAdminError> {
        let mut emails = Vec::new();
        for entry in configured
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|e| !e.is_empty())
        {
            let email = EmailAddress::parse(entry).map_err(|_| {
                PlatformAdminError::Validation(FieldErrors::single(
                    "emails",
                    format!("Invalid platform admin email: {entry}"),
                ))
            })?;
            if !emails.contains(&email) {
                emails.push(email);
            }
        }
        let mut report = SeedReport::default();
        if emails.is_empty() {
            return Ok(report);
        }
        for email in &emails {
            let audit = self
                .audit(Actor::Operator, AuditAction::PlatformRoleGranted, email)
                .change(
                    "platformRole",
                    serde_json::Value::Null,
                    PlatformRole::Admin.code(),
                );
            if let Some(added) = self.admins.seed(email, self.clock.now(), &audit).await? {
                report.added.push(added);
            }
        }
        let admins = self.admins.list().await?;
        report.pending = emails
            .into_iter()
            .filter(|email| grant_for(&admins, email).is_some_and(|a| !a.is_bound()))
            .collect();
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::UserId;
    use crate::identity::ports::MockPlatformAdminRepository;
    use crate::identity::test_support::email;
    use crate::testing::{block_on, fixed_clock, noon};
    use mockall::predicate::{always, eq, function};

    fn caller(role: Option<PlatformRole>) -> Caller {
        Caller {
            user_id: UserId::new(),
            email: email("me@x.io"),
            platform_role: role,
            origin: crate::common::ClientOrigin::default(),
        }
    }

    fn entry(address: &str, role: PlatformRole) -> PlatformAdmin {
        PlatformAdmin {
            email: email(address),
            user_id: Some(UserId::new()),
            role,
            added_at: noon(),
            added_by: None,
        }
    }

    fn service(repo: MockPlatformAdminRepository) -> PlatformAdminService {
        PlatformAdminService::new(
            Arc::new(repo),
            Arc::new(fixed_clock()),
            Arc::new(crate::testing::RepeatingBytes(3)),
        )
    }

    #[test]
    fn the_check_is_true_for_admins_and_reviewers_and_names_the_role() {
        let reviewer = PlatformAdminService::check(&caller(Some(PlatformRole::Reviewer)));
        assert_eq!(
            reviewer,
            AdminCheck {
                is_admin: true,
                role: Some(PlatformRole::Reviewer)
            }
        );
        assert_eq!(
            PlatformAdminService::check(&caller(None)),
            AdminCheck {
                is_admin: false,
                role: None
            }
        );
    }

    #[test]
    fn a_developer_may_not_list_grant_or_revoke() {
        let service = service(MockPlatformAdminRepository::new());
        let dev = caller(None);
        assert!(matches!(
            block_on(service.list(&dev)),
            Err(PlatformAdminError::Forbidden)
        ));
        assert!(matches!(
            block_on(service.grant(&dev, "a@x.io", "admin")),
            Err(PlatformAdminError::Forbidden)
        ));
        assert!(matches!(
            block_on(service.revoke(&dev, "a@x.io")),
            Err(PlatformAdminError::Forbidden)
        ));
    }

    #[test]
    fn a_reviewer_may_not_list_grant_or_revoke() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_list().never();
        let service = service(repo);
        let reviewer = caller(Some(PlatformRole::Reviewer));
        assert!(matches!(
            block_on(service.list(&reviewer)),
            Err(PlatformAdminError::Forbidden)
        ));
        assert!(matches!(
            block_on(service.grant(&reviewer, "b@x.io", "reviewer")),
            Err(PlatformAdminError::Forbidden)
        ));
        assert!(matches!(
            block_on(service.revoke(&reviewer, "a@x.io")),
            Err(PlatformAdminError::Forbidden)
        ));
    }

    #[test]
    fn an_admin_grants_a_role_recording_who_added_it() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_list()
            .returning(|| Ok(vec![entry("me@x.io", PlatformRole::Admin)]));
        repo.expect_grant()
            .with(
                eq(email("new@x.io")),
                eq(PlatformRole::Reviewer),
                eq(Some(email("me@x.io"))),
                eq(GrantBinding::ProvenAccount),
                eq(noon()),
                function(|audit: &AuditEntry| {
                    audit.action == AuditAction::PlatformRoleGranted
                        && audit.actor_email == "me@x.io"
                        && audit.org_id.is_none()
                        && audit.target.as_ref().map(|t| t.id.as_str()) == Some("new@x.io")
                        && audit.changes.len() == 1
                        && audit.changes[0].field == "platformRole"
                        && audit.changes[0].old.is_null()
                        && audit.changes[0].new == "reviewer"
                }),
            )
            .times(1)
            .returning(|e, r, by, _, at, _| {
                Ok(PlatformAdmin {
                    email: e.clone(),
                    user_id: None,
                    role: r,
                    added_at: at,
                    added_by: by,
                })
            });
        let granted =
            block_on(service(repo).grant(&caller(Some(PlatformRole::Admin)), " New@X.io ", "reviewer"))
                .unwrap();
        assert_eq!(granted.role, PlatformRole::Reviewer);
    }

    #[test]
    fn a_grant_needs_a_valid_email_and_role() {
        let service = service(MockPlatformAdminRepository::new());
        let error = block_on(service.grant(&caller(Some(PlatformRole::Admin)), "nope", "owner")).unwrap_err();
        let PlatformAdminError::Validation(fields) = error else {
            panic!("expected validation")
        };
        assert_eq!(fields.get("email"), Some("Please enter a valid email address"));
        assert_eq!(fields.get("role"), Some("Role must be admin or reviewer"));
    }

    #[test]
    fn the_last_admin_cannot_be_demoted_or_revoked() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_list().returning(|| {
            Ok(vec![
                entry("me@x.io", PlatformRole::Admin),
                entry("r@x.io", PlatformRole::Reviewer),
            ])
        });
        repo.expect_grant().never();
        repo.expect_remove().never();
        let service = service(repo);
        let admin = caller(Some(PlatformRole::Admin));
        let demote = block_on(service.grant(&admin, "me@x.io", "reviewer")).unwrap_err();
        assert!(matches!(demote, PlatformAdminError::LastAdmin));
        let revoke = block_on(service.revoke(&admin, "me@x.io")).unwrap_err();
        assert!(matches!(revoke, PlatformAdminError::LastAdmin));
        assert_eq!(
            revoke.to_string(),
            "You cannot remove the last platform admin. Add another admin first."
        );
    }

    #[test]
    fn the_operator_grants_without_a_caller_and_nobody_is_recorded_as_adding() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_list().returning(|| Ok(vec![]));
        // The operator vouches for the account that has the address, proven or not.
        repo.expect_grant()
            .withf(|email, role, by, binding, _, audit| {
                email.as_str() == "first@x.io"
                    && *role == PlatformRole::Admin
                    && by.is_none()
                    && *binding == GrantBinding::AnyAccount
                    && audit.actor_id.is_none()
                    && audit.actor_email == crate::audit::OPERATOR_ACTOR
                    && audit.action == AuditAction::PlatformRoleGranted
            })
            .times(1)
            .returning(|email, role, _, _, _, _| Ok(entry(email.as_str(), role)));
        let granted = block_on(service(repo).operator_grant("First@X.io", "admin")).unwrap();
        assert_eq!(granted.email.as_str(), "first@x.io");
    }

    #[test]
    fn the_operator_keeps_the_same_rules_as_an_admin() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_list()
            .returning(|| Ok(vec![entry("only@x.io", PlatformRole::Admin)]));
        repo.expect_grant().never();
        repo.expect_remove().never();
        let service = service(repo);
        let bad = block_on(service.operator_grant("nope", "boss")).unwrap_err();
        let PlatformAdminError::Validation(fields) = bad else {
            panic!("expected a validation error")
        };
        assert!(fields.get("email").is_some() && fields.get("role").is_some());
        assert!(matches!(
            block_on(service.operator_revoke("only@x.io")),
            Err(PlatformAdminError::LastAdmin)
        ));
        assert!(matches!(
            block_on(service.operator_revoke("stranger@x.io")),
            Err(PlatformAdminError::NotFound)
        ));
    }

    #[test]
    fn an_admin_revokes_another_and_the_repositorys_race_guard_maps_to_409() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_list().returning(|| {
            Ok(vec![
                entry("me@x.io", PlatformRole::Admin),
                entry("b@x.io", PlatformRole::Admin),
            ])
        });
        repo.expect_remove()
            .withf(|e, audit| {
                *e == email("b@x.io")
                    && audit.action == AuditAction::PlatformRoleRevoked
                    && audit.changes[0].old == "admin"
                    && audit.changes[0].new.is_null()
            })
            .times(1)
            .returning(|_, _| Ok(()));
        repo.expect_remove()
            .returning(|_, _| Err(RepoError::Conflict("last admin".into())));
        let service = service(repo);
        let admin = caller(Some(PlatformRole::Admin));
        block_on(service.revoke(&admin, "b@x.io")).unwrap();
        assert!(matches!(
            block_on(service.revoke(&admin, "me@x.io")),
            Err(PlatformAdminError::LastAdmin)
        ));
    }

    #[test]
    fn revoking_an_unknown_email_is_not_found() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_list()
            .returning(|| Ok(vec![entry("me@x.io", PlatformRole::Admin)]));
        let service = service(repo);
        let admin = caller(Some(PlatformRole::Admin));
        assert!(matches!(
            block_on(service.revoke(&admin, "ghost@x.io")),
            Err(PlatformAdminError::NotFound)
        ));
        assert!(matches!(
            block_on(service.revoke(&admin, "not-an-email")),
            Err(PlatformAdminError::NotFound)
        ));
    }

    #[test]
    fn a_pending_admin_does_not_keep_the_last_bound_admin_in_place_and_may_itself_go() {
        let mut pending = entry("waiting@x.io", PlatformRole::Admin);
        pending.user_id = None;
        let list = vec![entry("me@x.io", PlatformRole::Admin), pending];
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_list().returning(move || Ok(list.clone()));
        repo.expect_grant().never();
        repo.expect_remove()
            .with(eq(email("waiting@x.io")), always())
            .times(1)
            .returning(|_, _| Ok(()));
        let service = service(repo);
        let admin = caller(Some(PlatformRole::Admin));
        assert!(matches!(
            block_on(service.grant(&admin, "me@x.io", "reviewer")),
            Err(PlatformAdminError::LastAdmin)
        ));
        assert!(matches!(
            block_on(service.revoke(&admin, "me@x.io")),
            Err(PlatformAdminError::LastAdmin)
        ));
        block_on(service.revoke(&admin, "waiting@x.io")).unwrap();
    }

    #[test]
    fn seeding_adds_each_configured_email_once_and_reports_the_ones_still_pending() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_seed()
            .with(
                eq(email("first@x.io")),
                eq(noon()),
                function(|audit: &AuditEntry| {
                    audit.actor_id.is_none() && audit.action == AuditAction::PlatformRoleGranted
                }),
            )
            .times(1)
            .returning(|e, at, _| {
                Ok(Some(PlatformAdmin {
                    email: e.clone(),
                    user_id: None,
                    role: PlatformRole::Admin,
                    added_at: at,
                    added_by: None,
                }))
            });
        // Seeded before (its role may since have been revoked): the repository adds nothing.
        repo.expect_seed()
            .with(eq(email("kept@x.io")), eq(noon()), always())
            .times(1)
            .returning(|_, _, _| Ok(None));
        repo.expect_list().returning(|| {
            let mut waiting = entry("first@x.io", PlatformRole::Admin);
            waiting.user_id = None;
            Ok(vec![waiting, entry("kept@x.io", PlatformRole::Reviewer)])
        });
        let report = block_on(service(repo).seed(" First@x.io, kept@x.io\nfirst@x.io ,")).unwrap();
        assert_eq!(
            report.added.iter().map(|a| a.email.as_str()).collect::<Vec<_>>(),
            ["first@x.io"]
        );
        assert_eq!(report.pending, vec![email("first@x.io")]);
    }

    #[test]
    fn seeding_refuses_a_bad_entry_before_writing_anything() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_seed().never();
        let error = block_on(service(repo).seed("ok@x.io, broken")).unwrap_err();
        assert_eq!(error.to_string(), "Invalid platform admin email: broken");
    }
}
