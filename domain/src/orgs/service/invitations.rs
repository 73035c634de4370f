//! Invitation use cases ([`InvitationService`]): invite, resend, cancel (admins), preview (anyone with the
//! link), accept (the invitee).
//!
//! Invite and resend write the invitation e-mail to the outbox in the same repository call as the change.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{OrgService, is_conflict};
use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::email::INVALID_EMAIL;
use crate::common::secrets::digest_secret;
use crate::common::{Caller, Clock, EmailAddress, OrgId, RepoError, SecretGenerator};
use crate::identity::rate_limit::RateLimitStore;
use crate::mail::OutgoingEmail;
use crate::mail::templates::{self, OrgInviteMail};
use crate::orgs::errors::OrgError;
use crate::orgs::invite_limits;
use crate::orgs::invites::{Invite, InviteSummary, InviteToken, invite_link};
use crate::orgs::ports::{
    CONFLICT_INVITE_CLOSED, CONFLICT_INVITE_EXPIRED, CONFLICT_INVITE_RESENT, CONFLICT_OPEN_INVITES,
    DUPLICATE_INVITE, DUPLICATE_MEMBER, InviteRepository, MemberDirectory, OrgRepository,
};
use crate::orgs::{ActingMember, FieldErrors, Member, OrgAction, OrgRole, Organization};

/// What accepting answers (specification §3): the organization joined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AcceptedInvite {
    pub id: OrgId,
    pub name: String,
}

fn parse_invitee(email: &str) -> Result<EmailAddress, OrgError> {
    EmailAddress::parse(email).map_err(|_| OrgError::Validation(FieldErrors::single("email", INVALID_EMAIL)))
}

/// The invitation use cases and the ports they need. Like [`OrgService`]'s, the use cases on an existing
/// organization take the caller's [`ActingMember`] and check only its role ([`OrgService::allow`]).
pub struct InvitationService {
    pub(super) orgs: Arc<dyn OrgRepository>,
    pub(super) invites: Arc<dyn InviteRepository>,
    pub(super) directory: Arc<dyn MemberDirectory>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Arc<dyn SecretGenerator>,
    /// The base of invitation links (`PORTAL_PUBLIC_URL`).
    pub(super) public_url: String,
    /// The shared rate-limit counters, for the limits on invitation e-mails (`orgs::invite_limits`).
    pub(super) limits: Arc<dyn RateLimitStore>,
}

impl InvitationService {
    /// `limits` are the shared rate-limit counters (those of the identity limits), which the limits on
    /// invitation e-mails count on.
    #[must_use]
    pub fn new(
        orgs: Arc<dyn OrgRepository>,
        invites: Arc<dyn InviteRepository>,
        directory: Arc<dyn MemberDirectory>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        public_url: impl Into<String>,
        limits: Arc<dyn RateLimitStore>,
    ) -> Self {
        Self {
            orgs,
            invites,
            directory,
            clock,
            secrets,
            public_url: public_url.into(),
            limits,
        }
    }

    async fn existing(&self, org: OrgId) -> Result<Organization, OrgError> {
        self.orgs.get(org).await?.ok_or(OrgError::NotFound)
    }

    /// The audit entry of `action` by `caller` in `org`, now.
    fn audit(&self, caller: &Caller, action: AuditAction, org: OrgId) -> AuditEntry {
        AuditEntry::by(self.secrets.as_ref(), caller, action, self.clock.now()).in_org(org)
    }

    fn invite_email(
        &self,
        org: &Organization,
        caller: &Caller,
        invite: &Invite,
        token: &str,
    ) -> OutgoingEmail {
        let link = invite_link(&self.public_url, token);
        templates::org_invite(
            &invite.email,
            &OrgInviteMail {
                org_name: &org.name,
                inviter: &caller.email,
                role: invite.role,
                link: &link,
                expires_at: invite.expires_at,
            },
        )
    }

    /// Counts one invitation e-mail of the caller to `to` against the account's and the recipient's limits.
    async fn count_email(&self, caller: &Caller, to: &EmailAddress) -> Result<(), OrgError> {
        invite_limits::count_email(self.limits.as_ref(), caller.user_id, to, self.clock.now())
            .await?
            .map_err(OrgError::InviteLimited)
    }

    /// Invites an address (admins only) with a role (default member), and queues the e-mail with the link.
    ///
    /// # Errors
    /// [`OrgError::NotFound`], [`OrgError::AdminOnly`]; [`OrgError::Validation`] (`email`) for an invalid
    /// address; [`OrgError::InviteeIsMember`]; [`OrgError::InvitePending`] when an unexpired invitation is
    /// open for the address (an expired one is replaced); [`OrgError::InviteLimited`] when the organization
    /// has too many open invitations, the caller sent too many invitation e-mails today, or the address
    /// received too many e-mails lately (`orgs::invite_limits`); [`OrgError::Repo`].
    pub async fn invite(
        &self,
        member: &ActingMember,
        email: &str,
        role: Option<OrgRole>,
    ) -> Result<InviteSummary, OrgError> {
        OrgService::allow(member, OrgAction::ManageMembers)?;
        let (caller, org) = (member.caller(), member.org());
        let email = parse_invitee(email)?;
        let organization = self.existing(org).await?;
        if self.orgs.members(org).await?.iter().any(|m| m.email == email) {
            return Err(OrgError::InviteeIsMember);
        }
        let now = self.clock.now();
        let pending = self.invites.pending(org).await?;
        if pending.iter().any(|i| i.is_for(&email) && !i.is_expired(now)) {
            return Err(OrgError::InvitePending);
        }
        invite_limits::check_open_invites(&pending, now).map_err(OrgError::InviteLimited)?;
        self.count_email(caller, &email).await?;
        let (invite, token) = Invite::issue(
            org,
            email,
            role.unwrap_or_default(),
            caller.user_id,
            self.secrets.as_ref(),
            now,
        );
        let outgoing = self.invite_email(&organization, caller, &invite, &token);
        let audit = self
            .audit(caller, AuditAction::InviteSent, org)
            .on(AuditTarget::invitation(invite.id, invite.email.as_str()))
            .change("email", serde_json::Value::Null, invite.email.as_str())
            .change("role", serde_json::Value::Null, invite.role.code());
        match self.invites.create(&invite, &outgoing, &audit).await {
            Err(RepoError::Duplicate(what)) if what == DUPLICATE_INVITE => Err(OrgError::InvitePending),
            // Invitations sent at once: the cap was counted again inside the write, and held.
            Err(error) if is_conflict(&error, CONFLICT_OPEN_INVITES) => {
                let pending = self.invites.pending(org).await?;
                Err(OrgError::InviteLimited(
                    invite_limits::check_open_invites(&pending, now).err().unwrap_or(
                        invite_limits::InviteLimited {
                            limit: invite_limits::InviteLimit::OpenInvites,
                            retry_after_secs: 1,
                        },
                    ),
                ))
            }
            other => {
                other?;
                Ok(invite.summary(now))
            }
        }
    }

    /// Resends an open, unexpired invitation (admins only): a new token (the old link stops working), the
    /// expiry moved to seven days from now, one more e-mail counted and queued.
    ///
    /// # Errors
    /// [`OrgError::NotFound`], [`OrgError::AdminOnly`]; [`OrgError::Validation`] (`email`);
    /// [`OrgError::InviteNotFound`]; [`OrgError::ResendExpired`]; [`OrgError::InviteLimited`] when the
    /// invitation was sent less than ten minutes ago or resent five times already, or a limit of
    /// [`Self::invite`] refuses the e-mail; [`OrgError::Repo`].
    pub async fn resend_invite(&self, member: &ActingMember, email: &str) -> Result<InviteSummary, OrgError> {
        OrgService::allow(member, OrgAction::ManageMembers)?;
        let (caller, org) = (member.caller(), member.org());
        let email = parse_invitee(email)?;
        let organization = self.existing(org).await?;
        let now = self.clock.now();
        let mut invite = self
            .invites
            .pending(org)
            .await?
            .into_iter()
            .find(|i| i.is_for(&email))
            .ok_or(OrgError::InviteNotFound)?;
        if invite.is_expired(now) {
            return Err(OrgError::ResendExpired);
        }
        invite_limits::check_resend(&invite, now).map_err(OrgError::InviteLimited)?;
        self.count_email(caller, &email).await?;
        let fresh = InviteToken::issue(self.secrets.as_ref(), now);
        let before = (invite.email_sent_count, invite.expires_at);
        invite.apply_resend(&fresh);
        let outgoing = self.invite_email(&organization, caller, &invite, &fresh.token);
        let audit = self
            .audit(caller, AuditAction::InviteResent, org)
            .on(AuditTarget::invitation(invite.id, invite.email.as_str()))
            .change("emailSentCount", before.0, invite.email_sent_count)
            .change("expiresAt", before.1.to_rfc3339(), invite.expires_at.to_rfc3339());
        match self
            .invites
            .resend(
                org,
                &email,
                before.0,
                &fresh.token_hash,
                fresh.expires_at,
                now,
                &outgoing,
                &audit,
            )
            .await
        {
            Ok(stored) => Ok(stored.summary(now)),
            Err(RepoError::NotFound) => Err(OrgError::InviteNotFound),
            Err(error) if is_conflict(&error, CONFLICT_INVITE_EXPIRED) => Err(OrgError::ResendExpired),
            // Another resend went first (resends sent at once): this one is too soon after it.
            Err(error) if is_conflict(&error, CONFLICT_INVITE_RESENT) => {
                Err(OrgError::InviteLimited(invite_limits::InviteLimited {
                    limit: invite_limits::InviteLimit::ResendTooSoon,
                    retry_after_secs: u64::try_from(invite_limits::RESEND_INTERVAL_MINUTES * 60)
                        .unwrap_or(600),
                }))
            }
            Err(error) => Err(error.into()),
        }
    }

    /// Cancels the open invitation of an address (admins only); its link stops working.
    ///
    /// # Errors
    /// [`OrgError::NotFound`], [`OrgError::AdminOnly`]; [`OrgError::Validation`] (`email`);
    /// [`OrgError::InviteNotFound`]; [`OrgError::Repo`].
    pub async fn rescind_invite(&self, member: &ActingMember, email: &str) -> Result<(), OrgError> {
        OrgService::allow(member, OrgAction::ManageMembers)?;
        let org = member.org();
        let email = parse_invitee(email)?;
        let invite = self
            .invites
            .pending(org)
            .await?
            .into_iter()
            .find(|i| i.is_for(&email))
            .ok_or(OrgError::InviteNotFound)?;
        let audit = self
            .audit(member.caller(), AuditAction::InviteRescinded, org)
            .on(AuditTarget::invitation(invite.id, invite.email.as_str()));
        match self.invites.rescind(org, &email, self.clock.now(), &audit).await {
            Err(RepoError::NotFound) => Err(OrgError::InviteNotFound),
            other => Ok(other?),
        }
    }

    /// Accepts an invitation by its token: the caller joins with the invitation's role. The checks run in
    /// this order: the token names an open invitation; it was sent to the caller's address; it was not
    /// accepted; the caller is not a member yet; it has not expired.
    ///
    /// # Errors
    /// [`OrgError::InvalidInvite`] (404) for an unknown, replaced or cancelled token;
    /// [`OrgError::WrongInvitee`] (403); [`OrgError::InviteAlreadyAccepted`], [`OrgError::AlreadyMember`],
    /// [`OrgError::InviteExpired`] (400, specification §8); [`OrgError::Repo`].
    pub async fn accept_invite(&self, caller: &Caller, token: &str) -> Result<AcceptedInvite, OrgError> {
        let token = token.trim();
        if token.is_empty() {
            return Err(OrgError::InvalidInvite);
        }
        let token_hash = digest_secret(token);
        let invite = self
            .invites
            .find_by_token_hash(&token_hash)
            .await?
            .filter(|i| i.cancelled_at.is_none())
            .ok_or(OrgError::InvalidInvite)?;
        if !invite.is_for(&caller.email) {
            return Err(OrgError::WrongInvitee);
        }
        if invite.accepted_at.is_some() {
            return Err(OrgError::InviteAlreadyAccepted);
        }
        let org_id = invite.org_id;
        if self.directory.role_of(org_id, caller.user_id).await?.is_some() {
            return Err(OrgError::AlreadyMember(org_id));
        }
        let now = self.clock.now();
        if invite.is_expired(now) {
            return Err(OrgError::InviteExpired);
        }
        let organization = self.orgs.get(org_id).await?.ok_or(OrgError::InvalidInvite)?;
        let member = Member {
            user_id: caller.user_id,
            email: caller.email.clone(),
            role: invite.role,
            joined_at: now,
            has_two_factor: false,
        };
        let audit = self
            .audit(caller, AuditAction::InviteAccepted, org_id)
            .on(AuditTarget::invitation(invite.id, invite.email.as_str()))
            .change("role", serde_json::Value::Null, invite.role.code());
        match self
            .invites
            .accept(org_id, invite.id, &token_hash, &member, &audit)
            .await
        {
            Ok(()) => Ok(AcceptedInvite {
                id: organization.id,
                name: organization.name,
            }),
            Err(RepoError::NotFound) => Err(OrgError::InvalidInvite),
            Err(RepoError::Duplicate(what)) if what == DUPLICATE_MEMBER => {
                Err(OrgError::AlreadyMember(org_id))
            }
            Err(error) if is_conflict(&error, CONFLICT_INVITE_CLOSED) => Err(OrgError::InviteAlreadyAccepted),
            Err(error) if is_conflict(&error, CONFLICT_INVITE_EXPIRED) => Err(OrgError::InviteExpired),
            Err(error) => Err(error.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use crate::mail::EmailKind;
    use crate::orgs::invites::InviteStatus;
    use crate::testing::{block_on, noon};
    use chrono::Duration;
    use mockall::predicate::eq;

    /// The token [`Mocks::build`]'s generator draws: 32 bytes of 0x7f.
    fn drawn_token() -> String {
        "7f".repeat(32)
    }

    fn admin_with_org() -> Mocks {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks
            .orgs
            .expect_get()
            .with(eq(ORG))
            .returning(|_| Ok(Some(org())));
        mocks
    }

    fn inviting(existing_members: Vec<Member>, pending: Vec<Invite>) -> Mocks {
        let mut mocks = admin_with_org();
        mocks
            .orgs
            .expect_members()
            .return_once(move |_| Ok(existing_members));
        mocks.invites.expect_pending().return_once(move |_| Ok(pending));
        mocks
    }

    #[test]
    fn an_admin_invites_an_address_and_the_email_is_queued_in_the_same_call() {
        let mut mocks = inviting(vec![member(ME, OrgRole::Admin)], Vec::new());
        mocks
            .invites
            .expect_create()
            .withf(|invite, mail, audit| {
                let link = format!("{PUBLIC_URL}/invite/accept?token={}", drawn_token());
                invite.org_id == ORG
                    && invite.email.as_str() == "new@example.com"
                    && invite.role == OrgRole::Admin
                    && invite.invited_by == ME
                    && invite.token_hash == digest_secret(&drawn_token())
                    && invite.expires_at == noon() + Duration::days(7)
                    && invite.email_sent_count == 1
                    && mail.kind == EmailKind::OrgInvite
                    && mail.to == invite.email
                    && mail.link.as_deref() == Some(link.as_str())
                    && mail.text.contains("admin@acme.example.com")
                    && mail.subject.contains("Acme")
                    && audit.action == AuditAction::InviteSent
                    && audit.org_id == Some(ORG)
                    && audit.target == Some(AuditTarget::invitation(invite.id, "new@example.com"))
                    && audit
                        .changes
                        .iter()
                        .map(|c| c.field.as_str())
                        .eq(["email", "role"])
                    && !serde_json::to_string(audit)
                        .unwrap_or_default()
                        .contains(&drawn_token())
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        let summary = block_on(mocks.build_invitations().invite(
            &me_in(OrgRole::Admin),
            " New@Example.com ",
            Some(OrgRole::Admin),
        ))
        .unwrap();
        assert_eq!(summary.email.as_str(), "new@example.com");
        assert_eq!(summary.status, InviteStatus::Pending);
    }

    #[test]
    fn the_invited_role_defaults_to_member() {
        let mut mocks = inviting(Vec::new(), Vec::new());
        mocks
            .invites
            .expect_create()
            .withf(|invite, _, _| invite.role == OrgRole::Member)
            .times(1)
            .returning(|_, _, _| Ok(()));
        let summary = block_on(mocks.build_invitations().invite(
            &me_in(OrgRole::Admin),
            "new@example.com",
            None,
        ))
        .unwrap();
        assert_eq!(summary.role, OrgRole::Member);
    }

    #[test]
    fn an_invalid_invitee_address_is_refused_on_the_email_field() {
        let mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        let error = block_on(
            mocks
                .build_invitations()
                .invite(&me_in(OrgRole::Admin), "no-at-sign", None),
        )
        .unwrap_err();
        assert_eq!(error.to_string(), "Please enter a valid email address");
        assert!(error.fields().and_then(|f| f.get("email")).is_some());
    }

    #[test]
    fn inviting_an_existing_member_is_a_conflict() {
        let mocks = inviting(vec![member(OTHER, OrgRole::Member)], Vec::new());
        let error = block_on(mocks.build_invitations().invite(
            &me_in(OrgRole::Admin),
            "user-2@acme.example.com",
            None,
        ))
        .unwrap_err();
        assert!(matches!(error, OrgError::InviteeIsMember));
    }

    #[test]
    fn inviting_an_address_with_a_pending_invitation_is_a_conflict() {
        let mocks = inviting(Vec::new(), vec![open_invite("new@example.com", noon())]);
        let error = block_on(mocks.build_invitations().invite(
            &me_in(OrgRole::Admin),
            "NEW@example.com",
            None,
        ))
        .unwrap_err();
        assert!(matches!(error, OrgError::InvitePending));
    }

    #[test]
    fn an_expired_invitation_does_not_block_a_new_one() {
        let expired = open_invite("new@example.com", noon() - Duration::days(8));
        let mut mocks = inviting(Vec::new(), vec![expired]);
        mocks.invites.expect_create().times(1).returning(|_, _, _| Ok(()));
        assert!(
            block_on(
                mocks
                    .build_invitations()
                    .invite(&me_in(OrgRole::Admin), "new@example.com", None)
            )
            .is_ok()
        );
    }

    #[test]
    fn a_concurrent_duplicate_invitation_is_a_conflict() {
        let mut mocks = inviting(Vec::new(), Vec::new());
        mocks
            .invites
            .expect_create()
            .returning(|_, _, _| Err(RepoError::Duplicate(DUPLICATE_INVITE)));
        let error = block_on(mocks.build_invitations().invite(
            &me_in(OrgRole::Admin),
            "new@example.com",
            None,
        ))
        .unwrap_err();
        assert!(matches!(error, OrgError::InvitePending));
    }

    #[test]
    fn a_resend_issues_a_new_token_extends_the_expiry_and_queues_the_email() {
        let mut mocks = admin_with_org();
        let invite = open_invite("new@example.com", noon() - Duration::days(3));
        let old_hash = invite.token_hash.clone();
        mocks
            .invites
            .expect_pending()
            .return_once(move |_| Ok(vec![invite]));
        mocks
            .invites
            .expect_resend()
            .withf(move |org, to, sent_was, hash, expiry, now, mail, audit| {
                *org == ORG
                    && to.as_str() == "new@example.com"
                    && *sent_was == 1
                    && hash == digest_secret(&drawn_token())
                    && *hash != old_hash
                    && *expiry == noon() + Duration::days(7)
                    && *now == noon()
                    && mail.kind == EmailKind::OrgInvite
                    && mail.link.as_deref().is_some_and(|l| l.ends_with(&drawn_token()))
                    && audit.action == AuditAction::InviteResent
                    && audit
                        .changes
                        .iter()
                        .map(|c| c.field.as_str())
                        .eq(["emailSentCount", "expiresAt"])
                    && !serde_json::to_string(audit)
                        .unwrap_or_default()
                        .contains(&drawn_token())
            })
            .times(1)
            .returning(|_, _, _, hash, expiry, _, _, _| {
                let mut stored = open_invite("new@example.com", noon() - Duration::days(3));
                stored.token_hash = hash.to_owned();
                stored.expires_at = expiry;
                stored.email_sent_count = 2;
                Ok(stored)
            });
        let summary = block_on(
            mocks
                .build_invitations()
                .resend_invite(&me_in(OrgRole::Admin), "new@example.com"),
        )
        .unwrap();
        assert_eq!(summary.email_sent_count, 2);
        assert_eq!(summary.expires_at, noon() + Duration::days(7));
    }

    #[test]
    fn an_expired_invitation_cannot_be_resent() {
        let mut mocks = admin_with_org();
        let expired = open_invite("new@example.com", noon() - Duration::days(7));
        mocks
            .invites
            .expect_pending()
            .return_once(move |_| Ok(vec![expired]));
        let error = block_on(
            mocks
                .build_invitations()
                .resend_invite(&me_in(OrgRole::Admin), "new@example.com"),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::ResendExpired));
        assert!(error.to_string().contains("expired"));
    }

    #[test]
    fn resending_without_a_pending_invitation_is_not_found() {
        let mut mocks = admin_with_org();
        mocks.invites.expect_pending().returning(|_| Ok(Vec::new()));
        let error = block_on(
            mocks
                .build_invitations()
                .resend_invite(&me_in(OrgRole::Admin), "new@example.com"),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::InviteNotFound));
    }

    fn limited(error: &OrgError) -> Option<invite_limits::InviteLimit> {
        match error {
            OrgError::InviteLimited(refused) => Some(refused.limit),
            _ => None,
        }
    }

    #[test]
    fn an_organization_with_fifty_open_invitations_sends_no_more() {
        let pending: Vec<Invite> = (0..50)
            .map(|n| open_invite(&format!("p{n}@example.com"), noon() - Duration::days(1)))
            .collect();
        let mut mocks = inviting(Vec::new(), pending);
        mocks.invites.expect_create().never();
        let error = block_on(mocks.build_invitations().invite(
            &me_in(OrgRole::Admin),
            "new@example.com",
            None,
        ))
        .unwrap_err();
        assert_eq!(limited(&error), Some(invite_limits::InviteLimit::OpenInvites));
        assert!(error.to_string().contains("50 open invitations"));
    }

    #[test]
    fn an_account_sends_at_most_a_hundred_invitation_emails_a_day() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks.orgs.expect_get().returning(|_| Ok(Some(org())));
        mocks.orgs.expect_members().returning(|_| Ok(Vec::new()));
        mocks.invites.expect_pending().returning(|_| Ok(Vec::new()));
        mocks
            .invites
            .expect_create()
            .times(100)
            .returning(|_, _, _| Ok(()));
        let service = mocks.build_invitations();
        for n in 0..100 {
            block_on(service.invite(&me_in(OrgRole::Admin), &format!("p{n}@example.com"), None)).unwrap();
        }
        let error =
            block_on(service.invite(&me_in(OrgRole::Admin), "one-more@example.com", None)).unwrap_err();
        assert_eq!(limited(&error), Some(invite_limits::InviteLimit::AccountDaily));
    }

    #[test]
    fn invitations_to_one_address_stop_at_its_email_limit() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks.orgs.expect_get().returning(|_| Ok(Some(org())));
        mocks.orgs.expect_members().returning(|_| Ok(Vec::new()));
        // Re-invited after each cancellation: never an open invitation in the way.
        mocks.invites.expect_pending().returning(|_| Ok(Vec::new()));
        let allowed = invite_limits::recipient_limit().max as usize;
        mocks
            .invites
            .expect_create()
            .times(allowed)
            .returning(|_, _, _| Ok(()));
        let service = mocks.build_invitations();
        for _ in 0..allowed {
            block_on(service.invite(&me_in(OrgRole::Admin), "target@example.com", None)).unwrap();
        }
        let error = block_on(service.invite(&me_in(OrgRole::Admin), "target@example.com", None)).unwrap_err();
        assert_eq!(limited(&error), Some(invite_limits::InviteLimit::Recipient));
    }

    #[test]
    fn a_resend_within_ten_minutes_of_the_last_email_is_refused_and_sends_nothing() {
        let mut mocks = admin_with_org();
        let fresh = open_invite("new@example.com", noon() - Duration::minutes(3));
        mocks
            .invites
            .expect_pending()
            .return_once(move |_| Ok(vec![fresh]));
        mocks.invites.expect_resend().never();
        let error = block_on(
            mocks
                .build_invitations()
                .resend_invite(&me_in(OrgRole::Admin), "new@example.com"),
        )
        .unwrap_err();
        let OrgError::InviteLimited(refused) = error else {
            panic!("not limited: {error:?}")
        };
        assert_eq!(refused.limit, invite_limits::InviteLimit::ResendTooSoon);
        assert_eq!(refused.retry_after_secs, 7 * 60);
    }

    #[test]
    fn an_invitation_resent_five_times_is_not_resent_again() {
        let mut mocks = admin_with_org();
        let mut worn = open_invite("new@example.com", noon() - Duration::days(1));
        worn.email_sent_count = 6;
        mocks
            .invites
            .expect_pending()
            .return_once(move |_| Ok(vec![worn]));
        mocks.invites.expect_resend().never();
        let error = block_on(
            mocks
                .build_invitations()
                .resend_invite(&me_in(OrgRole::Admin), "new@example.com"),
        )
        .unwrap_err();
        assert_eq!(limited(&error), Some(invite_limits::InviteLimit::ResendsUsedUp));
    }

    #[test]
    fn an_admin_cancels_a_pending_invitation() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        let invite = open_invite("new@example.com", noon());
        let id = invite.id;
        mocks
            .invites
            .expect_pending()
            .return_once(move |_| Ok(vec![invite]));
        mocks
            .invites
            .expect_rescind()
            .with(
                eq(ORG),
                eq(email("new@example.com")),
                eq(noon()),
                mockall::predicate::function(move |audit: &crate::audit::AuditEntry| {
                    audit.action == AuditAction::InviteRescinded
                        && audit.target == Some(AuditTarget::invitation(id, "new@example.com"))
                }),
            )
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        assert!(
            block_on(
                mocks
                    .build_invitations()
                    .rescind_invite(&me_in(OrgRole::Admin), "New@example.com")
            )
            .is_ok()
        );
    }

    #[test]
    fn cancelling_without_a_pending_invitation_is_not_found() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks.invites.expect_pending().returning(|_| Ok(Vec::new()));
        mocks.invites.expect_rescind().never();
        let error = block_on(
            mocks
                .build_invitations()
                .rescind_invite(&me_in(OrgRole::Admin), "new@example.com"),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::InviteNotFound));
    }

    /// Mocks where the token resolves to `invite` and the caller's membership is `role`.
    fn accepting(invite: Option<Invite>, role: Option<OrgRole>) -> Mocks {
        let mut mocks = Mocks::new().with_role(role);
        mocks
            .invites
            .expect_find_by_token_hash()
            .with(eq(digest_secret("the-token")))
            .return_once(move |_| Ok(invite));
        mocks
    }

    fn invite_for_me() -> Invite {
        let mut invite = open_invite("Admin@Acme.Example.com", noon() - Duration::days(1));
        invite.role = OrgRole::Admin;
        invite
    }

    #[test]
    fn accepting_joins_with_the_invitations_role_and_answers_the_organization() {
        let mut mocks = accepting(Some(invite_for_me()), None);
        mocks.orgs.expect_get().returning(|_| Ok(Some(org())));
        mocks
            .invites
            .expect_accept()
            .withf(|org, invite, token_hash, member, audit| {
                *org == ORG
                    && invite.0.as_u128() == 99
                    && token_hash == digest_secret("the-token")
                    && member.user_id == ME
                    && member.role == OrgRole::Admin
                    && member.joined_at == noon()
                    && audit.action == AuditAction::InviteAccepted
                    && audit.actor_id == Some(ME)
                    && audit.org_id == Some(ORG)
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(()));
        let accepted = block_on(mocks.build_invitations().accept_invite(&me(), " the-token ")).unwrap();
        assert_eq!(
            accepted,
            AcceptedInvite {
                id: ORG,
                name: "Acme".into()
            }
        );
    }

    #[test]
    fn an_unknown_or_empty_token_is_an_invalid_invitation() {
        let error = block_on(
            accepting(None, None)
                .build_invitations()
                .accept_invite(&me(), "the-token"),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::InvalidInvite));
        let error = block_on(Mocks::new().build_invitations().accept_invite(&me(), "  ")).unwrap_err();
        assert!(matches!(error, OrgError::InvalidInvite));
    }

    #[test]
    fn a_cancelled_invitation_cannot_be_accepted() {
        let mut invite = invite_for_me();
        invite.cancelled_at = Some(noon());
        let error = block_on(
            accepting(Some(invite), None)
                .build_invitations()
                .accept_invite(&me(), "the-token"),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::InvalidInvite));
    }

    #[test]
    fn an_invitation_sent_to_another_address_is_forbidden() {
        let invite = open_invite("someone-else@example.com", noon());
        let error = block_on(
            accepting(Some(invite), None)
                .build_invitations()
                .accept_invite(&me(), "the-token"),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::WrongInvitee));
        assert_eq!(
            error.to_string(),
            "This invitation was sent to a different email address"
        );
    }

    #[test]
    fn an_accepted_invitation_cannot_be_used_again() {
        let mut invite = invite_for_me();
        invite.accepted_at = Some(noon());
        let error = block_on(
            accepting(Some(invite), None)
                .build_invitations()
                .accept_invite(&me(), "the-token"),
        )
        .unwrap_err();
        assert!(error.to_string().contains("already been accepted"));
    }

    #[test]
    fn a_member_accepting_is_told_so_with_the_organization_id_after_a_colon() {
        let mocks = accepting(Some(invite_for_me()), Some(OrgRole::Member));
        let error = block_on(mocks.build_invitations().accept_invite(&me(), "the-token")).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("already a member"));
        assert!(message.ends_with(&format!(":{ORG}")));
    }

    #[test]
    fn an_expired_invitation_cannot_be_accepted() {
        let invite = open_invite("admin@acme.example.com", noon() - Duration::days(7));
        let error = block_on(
            accepting(Some(invite), None)
                .build_invitations()
                .accept_invite(&me(), "the-token"),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::InviteExpired));
        assert!(error.to_string().contains("expired"));
    }

    #[test]
    fn a_concurrent_acceptance_is_reported_as_already_accepted() {
        let mut mocks = accepting(Some(invite_for_me()), None);
        mocks.orgs.expect_get().returning(|_| Ok(Some(org())));
        mocks
            .invites
            .expect_accept()
            .returning(|_, _, _, _, _| Err(RepoError::Conflict(CONFLICT_INVITE_CLOSED.into())));
        let error = block_on(mocks.build_invitations().accept_invite(&me(), "the-token")).unwrap_err();
        assert!(matches!(error, OrgError::InviteAlreadyAccepted));
    }

    #[test]
    fn joining_concurrently_by_another_way_is_reported_as_already_a_member() {
        let mut mocks = accepting(Some(invite_for_me()), None);
        mocks.orgs.expect_get().returning(|_| Ok(Some(org())));
        mocks
            .invites
            .expect_accept()
            .returning(|_, _, _, _, _| Err(RepoError::Duplicate(DUPLICATE_MEMBER)));
        let error = block_on(mocks.build_invitations().accept_invite(&me(), "the-token")).unwrap_err();
        assert!(matches!(error, OrgError::AlreadyMember(id) if id == ORG));
    }

    #[test]
    fn an_invitation_that_expires_before_the_write_is_reported_as_expired() {
        let mut mocks = accepting(Some(invite_for_me()), None);
        mocks.orgs.expect_get().returning(|_| Ok(Some(org())));
        mocks
            .invites
            .expect_accept()
            .returning(|_, _, _, _, _| Err(RepoError::Conflict(CONFLICT_INVITE_EXPIRED.into())));
        let error = block_on(mocks.build_invitations().accept_invite(&me(), "the-token")).unwrap_err();
        assert!(matches!(error, OrgError::InviteExpired));
    }

    #[test]
    fn a_token_replaced_before_the_write_is_an_invalid_invitation() {
        let mut mocks = accepting(Some(invite_for_me()), None);
        mocks.orgs.expect_get().returning(|_| Ok(Some(org())));
        mocks
            .invites
            .expect_accept()
            .returning(|_, _, _, _, _| Err(RepoError::NotFound));
        let error = block_on(mocks.build_invitations().accept_invite(&me(), "the-token")).unwrap_err();
        assert!(matches!(error, OrgError::InvalidInvite));
    }
}
