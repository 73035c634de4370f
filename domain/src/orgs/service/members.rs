//! The members of an organization: changing another member's role, removing one, and leaving.

use super::{OrgService, is_conflict};
use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::{RepoError, UserId};
use crate::orgs::errors::OrgError;
use crate::orgs::ports::CONFLICT_LAST_ADMIN;
use crate::orgs::{ActingMember, Member, OrgAction, OrgRole};

impl OrgService {
    /// The audit entry of `action` on `member` of the acting member's organization, with the member's
    /// e-mail as its label; `None` when `member` is not a member (the write then answers not found).
    async fn member_audit(
        &self,
        acting: &ActingMember,
        action: AuditAction,
        member: UserId,
    ) -> Result<(AuditEntry, Option<Member>), OrgError> {
        let current = self
            .orgs
            .members(acting.org())
            .await?
            .into_iter()
            .find(|m| m.user_id == member);
        let mut target = AuditTarget::member(member);
        if let Some(found) = &current {
            target = target.with_label(found.email.as_str());
        }
        Ok((
            self.audit(acting.caller(), action, acting.org()).on(target),
            current,
        ))
    }

    /// Changes another member's role (admins only). The only admin cannot be demoted.
    ///
    /// # Errors
    /// [`OrgError::NotFound`], [`OrgError::AdminOnly`]; [`OrgError::OwnRole`] when `member` is the caller;
    /// [`OrgError::MemberNotFound`]; [`OrgError::OnlyAdminCannotBeDemoted`]; [`OrgError::Repo`].
    pub async fn change_role(
        &self,
        acting: &ActingMember,
        member: UserId,
        role: OrgRole,
    ) -> Result<(), OrgError> {
        Self::allow(acting, OrgAction::ManageMembers)?;
        if member == acting.caller().user_id {
            return Err(OrgError::OwnRole);
        }
        let (audit, current) = self
            .member_audit(acting, AuditAction::MemberRoleChanged, member)
            .await?;
        let audit = audit.change("role", current.map(|m| m.role.code().to_owned()), role.code());
        match self.orgs.set_role(acting.org(), member, role, &audit).await {
            Ok(()) => Ok(()),
            Err(RepoError::NotFound) => Err(OrgError::MemberNotFound),
            Err(error) if is_conflict(&error, CONFLICT_LAST_ADMIN) => Err(OrgError::OnlyAdminCannotBeDemoted),
            Err(error) => Err(error.into()),
        }
    }

    /// Removes another member (admins only); the caller leaves with [`OrgService::leave`] instead.
    ///
    /// # Errors
    /// [`OrgError::NotFound`], [`OrgError::AdminOnly`]; [`OrgError::RemoveSelf`] when `member` is the caller;
    /// [`OrgError::MemberNotFound`]; [`OrgError::OnlyAdminCannotBeRemoved`]; [`OrgError::Repo`].
    pub async fn remove_member(&self, acting: &ActingMember, member: UserId) -> Result<(), OrgError> {
        Self::allow(acting, OrgAction::ManageMembers)?;
        if member == acting.caller().user_id {
            return Err(OrgError::RemoveSelf);
        }
        let (audit, _) = self
            .member_audit(acting, AuditAction::MemberRemoved, member)
            .await?;
        match self.orgs.remove_member(acting.org(), member, &audit).await {
            Ok(()) => Ok(()),
            Err(RepoError::NotFound) => Err(OrgError::MemberNotFound),
            Err(error) if is_conflict(&error, CONFLICT_LAST_ADMIN) => Err(OrgError::OnlyAdminCannotBeRemoved),
            Err(error) => Err(error.into()),
        }
    }

    /// `DELETE /api/orgs/{orgId}/members/{memberId}`: the caller leaves when `member` is the caller
    /// ([`OrgService::leave`]), and removes another member otherwise ([`OrgService::remove_member`]).
    ///
    /// # Errors
    /// As [`OrgService::leave`] or [`OrgService::remove_member`].
    pub async fn leave_or_remove(&self, acting: &ActingMember, member: UserId) -> Result<(), OrgError> {
        if member == acting.caller().user_id {
            self.leave(acting).await
        } else {
            self.remove_member(acting, member).await
        }
    }

    /// The caller leaves the organization (any member), unless the caller is its only admin.
    ///
    /// # Errors
    /// [`OrgError::NotFound`] when the membership ended meanwhile; [`OrgError::OnlyAdminCannotLeave`];
    /// [`OrgError::Repo`].
    pub async fn leave(&self, member: &ActingMember) -> Result<(), OrgError> {
        Self::allow(member, OrgAction::Leave)?;
        let me = member.caller();
        let audit = self
            .audit(me, AuditAction::MemberLeft, member.org())
            .on(AuditTarget::member(me.user_id).with_label(me.email.as_str()));
        match self.orgs.remove_member(member.org(), me.user_id, &audit).await {
            Ok(()) => Ok(()),
            Err(RepoError::NotFound) => Err(OrgError::NotFound),
            Err(error) if is_conflict(&error, CONFLICT_LAST_ADMIN) => Err(OrgError::OnlyAdminCannotLeave),
            Err(error) => Err(error.into()),
        }
    }
}
