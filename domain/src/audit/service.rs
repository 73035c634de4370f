//! Reading the audit log (organization admins their organization's, platform admins the platform's) and
//! its retention.

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};

use super::ports::AuditLog;
use super::{AuditCursor, AuditFilter, AuditPage, AuditScope};
use crate::common::{Caller, RepoError};
use crate::membership::{ActingMember, OrgAction};

/// Entries of a page when the client asks for none.
pub const DEFAULT_PAGE: u32 = 50;
/// Most entries of one page.
pub const MAX_PAGE: u32 = 200;
/// Entries the retention removes per transaction.
pub const RETENTION_BATCH: u32 = 500;
/// `PORTAL_AUDIT_RETENTION_DAYS` when unset.
pub const DEFAULT_RETENTION_DAYS: u32 = 400;

pub const AUDIT_ADMINS_ONLY: &str = "Only organization admins can read the audit log";
pub const PLATFORM_ADMINS_ONLY: &str = "Only platform admins can read the platform's audit log";

/// Errors of the audit log's use cases.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// 403: the caller may not read this log.
    #[error("{0}")]
    Forbidden(&'static str),
    /// 400: the page size is outside 1..=[`MAX_PAGE`] or the dates are reversed (field, message).
    #[error("{1}")]
    Invalid(&'static str, String),
    /// 500 (or 503).
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// One read: filters, where to start, how many.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditQuery {
    pub filter: AuditFilter,
    pub after: Option<AuditCursor>,
    pub limit: Option<u32>,
}

impl AuditQuery {
    fn checked_limit(&self) -> Result<u32, AuditError> {
        if let (Some(from), Some(to)) = (self.filter.from, self.filter.to)
            && from > to
        {
            return Err(AuditError::Invalid(
                "to",
                "`to` must not be before `from`".to_owned(),
            ));
        }
        match self.limit {
            None => Ok(DEFAULT_PAGE),
            Some(limit) if (1..=MAX_PAGE).contains(&limit) => Ok(limit),
            Some(_) => Err(AuditError::Invalid(
                "limit",
                format!("`limit` must be between 1 and {MAX_PAGE}"),
            )),
        }
    }
}

/// The audit log's use cases.
pub struct AuditService {
    log: Arc<dyn AuditLog>,
}

impl AuditService {
    #[must_use]
    pub fn new(log: Arc<dyn AuditLog>) -> Self {
        Self { log }
    }

    /// A page of the member's organization's log, for organization admins.
    ///
    /// # Errors
    /// [`AuditError::Forbidden`] for a member who is not an admin; [`AuditError::Invalid`];
    /// [`AuditError::Repo`].
    pub async fn org_log(&self, member: &ActingMember, query: &AuditQuery) -> Result<AuditPage, AuditError> {
        if !member.can(OrgAction::ReadAuditLog) {
            return Err(AuditError::Forbidden(AUDIT_ADMINS_ONLY));
        }
        let limit = query.checked_limit()?;
        Ok(self
            .log
            .list(AuditScope::Org(member.org()), &query.filter, query.after, limit)
            .await?)
    }

    /// A page of the platform's log (platform entries and review decisions), for platform admins.
    ///
    /// # Errors
    /// [`AuditError::Forbidden`] unless the caller is a platform admin; [`AuditError::Invalid`];
    /// [`AuditError::Repo`].
    pub async fn platform_log(&self, caller: &Caller, query: &AuditQuery) -> Result<AuditPage, AuditError> {
        if !caller.can_manage_platform() {
            return Err(AuditError::Forbidden(PLATFORM_ADMINS_ONLY));
        }
        let limit = query.checked_limit()?;
        Ok(self
            .log
            .list(AuditScope::Platform, &query.filter, query.after, limit)
            .await?)
    }

    /// Removes the entries older than `retention_days` before `now`, batch after batch, and answers how
    /// many it removed.
    ///
    /// # Errors
    /// [`AuditError::Repo`] when a batch fails (the batches before it stay removed).
    pub async fn apply_retention(&self, now: DateTime<Utc>, retention_days: u32) -> Result<u64, AuditError> {
        let before = now - TimeDelta::days(i64::from(retention_days));
        let mut removed = 0;
        loop {
            let batch = self.log.delete_older_than(before, RETENTION_BATCH).await?;
            removed += batch;
            if batch < u64::from(RETENTION_BATCH) {
                return Ok(removed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::ports::MockAuditLog;
    use crate::common::{ClientOrigin, EmailAddress, OrgId, PlatformRole, UserId};
    use crate::membership::OrgRole;
    use crate::membership::ports::MockMemberDirectory;
    use crate::testing::{block_on, noon};
    use mockall::predicate::{always, eq};

    fn caller(platform_role: Option<PlatformRole>) -> Caller {
        Caller {
            user_id: UserId::new(),
            email: EmailAddress::parse("a@example.com").unwrap(),
            platform_role,
            origin: ClientOrigin::default(),
        }
    }

    fn member(role: OrgRole) -> ActingMember {
        let mut directory = MockMemberDirectory::new();
        directory.expect_standing_of().returning(move |_, _| {
            Ok(Some(crate::membership::MemberStanding {
                role,
                org_requires_two_factor: false,
            }))
        });
        block_on(ActingMember::resolve(
            crate::membership::StandingSource::Directory(&directory, OrgId::new()),
            caller(None),
            crate::membership::SecondFactor::NotPassed,
            crate::membership::Door::Act,
        ))
        .unwrap()
        .unwrap()
    }

    fn empty_page() -> AuditPage {
        AuditPage {
            entries: Vec::new(),
            next: None,
        }
    }

    #[test]
    fn an_admin_reads_the_organization_log_and_a_member_is_refused_without_a_read() {
        let admin = member(OrgRole::Admin);
        let mut log = MockAuditLog::new();
        log.expect_list()
            .with(
                eq(AuditScope::Org(admin.org())),
                always(),
                eq(None),
                eq(DEFAULT_PAGE),
            )
            .times(1)
            .returning(|_, _, _, _| Ok(empty_page()));
        let service = AuditService::new(Arc::new(log));
        assert_eq!(
            block_on(service.org_log(&admin, &AuditQuery::default())).unwrap(),
            empty_page()
        );
        let refused = block_on(service.org_log(&member(OrgRole::Member), &AuditQuery::default()));
        assert!(matches!(refused, Err(AuditError::Forbidden(AUDIT_ADMINS_ONLY))));
    }

    #[test]
    fn only_platform_admins_read_the_platform_log() {
        let mut log = MockAuditLog::new();
        log.expect_list()
            .with(eq(AuditScope::Platform), always(), always(), eq(10))
            .times(1)
            .returning(|_, _, _, _| Ok(empty_page()));
        let service = AuditService::new(Arc::new(log));
        let query = AuditQuery {
            limit: Some(10),
            ..AuditQuery::default()
        };
        assert!(block_on(service.platform_log(&caller(Some(PlatformRole::Admin)), &query)).is_ok());
        for refused in [caller(Some(PlatformRole::Reviewer)), caller(None)] {
            assert!(matches!(
                block_on(service.platform_log(&refused, &query)),
                Err(AuditError::Forbidden(_))
            ));
        }
    }

    #[test]
    fn a_page_size_out_of_range_or_reversed_dates_are_refused() {
        let service = AuditService::new(Arc::new(MockAuditLog::new()));
        let admin = caller(Some(PlatformRole::Admin));
        for limit in [0, MAX_PAGE + 1] {
            let query = AuditQuery {
                limit: Some(limit),
                ..AuditQuery::default()
            };
            assert!(matches!(
                block_on(service.platform_log(&admin, &query)),
                Err(AuditError::Invalid("limit", _))
            ));
        }
        let reversed = AuditQuery {
            filter: AuditFilter {
                from: Some(noon()),
                to: Some(noon() - TimeDelta::days(1)),
                ..AuditFilter::default()
            },
            ..AuditQuery::default()
        };
        assert!(matches!(
            block_on(service.platform_log(&admin, &reversed)),
            Err(AuditError::Invalid("to", _))
        ));
    }

    #[test]
    fn retention_deletes_batch_after_batch_until_a_short_one() {
        let mut log = MockAuditLog::new();
        let mut answers = vec![u64::from(RETENTION_BATCH), u64::from(RETENTION_BATCH), 3].into_iter();
        log.expect_delete_older_than()
            .with(eq(noon() - TimeDelta::days(400)), eq(RETENTION_BATCH))
            .times(3)
            .returning(move |_, _| Ok(answers.next().unwrap_or(0)));
        let service = AuditService::new(Arc::new(log));
        let removed = block_on(service.apply_retention(noon(), DEFAULT_RETENTION_DAYS)).unwrap();
        assert_eq!(removed, 2 * u64::from(RETENTION_BATCH) + 3);
    }
}
