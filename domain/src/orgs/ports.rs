//! Ports of the organizations context.

use crate::audit::AuditEntry;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::invites::Invite;
use super::{Member, OrgMembership, OrgProfile, OrgRole, Organization};
use crate::common::{EmailAddress, ImageId, InviteId, OrgId, RepoError, UserId};
use crate::mail::OutgoingEmail;

#[cfg(any(test, feature = "mock"))]
pub use crate::membership::ports::MockMemberDirectory;
pub use crate::membership::ports::{MemberDirectory, MemberStanding};

/// [`RepoError::Conflict`] value: the change would leave the organization without an admin.
pub const CONFLICT_LAST_ADMIN: &str = "last_admin";
/// [`RepoError::Conflict`] value: the organization still owns apps.
pub const CONFLICT_APPS_REMAIN: &str = "apps_remain";
/// [`RepoError::Conflict`] value: the user already belongs to an organization (personal-org creation).
pub const CONFLICT_HAS_ORGANIZATION: &str = "has_organization";
/// [`RepoError::Conflict`] value: the invitation is no longer open (accepted or cancelled meanwhile).
pub const CONFLICT_INVITE_CLOSED: &str = "invite_closed";
/// [`RepoError::Conflict`] value: the open invitation has expired.
pub const CONFLICT_INVITE_EXPIRED: &str = "invite_expired";
/// [`RepoError::Conflict`] value: the organization has
/// [`MAX_OPEN_INVITES_PER_ORG`](super::invite_limits::MAX_OPEN_INVITES_PER_ORG) open, unexpired
/// invitations (counted inside the write that adds one).
pub const CONFLICT_OPEN_INVITES: &str = "open_invites";
/// [`RepoError::Conflict`] value: the invitation was resent (or changed) since it was read: its e-mail
/// count is not the one the resend was decided on.
pub const CONFLICT_INVITE_RESENT: &str = "invite_resent";
/// [`RepoError::Duplicate`] value: an open, unexpired invitation exists for this organization and e-mail.
pub const DUPLICATE_INVITE: &str = "invite";
/// [`RepoError::Duplicate`] value: the user is already a member of the organization.
pub const DUPLICATE_MEMBER: &str = "member";

/// What [`OrgRepository::contents`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgContents {
    pub organization: Organization,
    /// Oldest first, as [`OrgRepository::members`].
    pub members: Vec<Member>,
    /// The open invitations (expired ones included), oldest first, as [`InviteRepository::pending`].
    pub pending_invites: Vec<Invite>,
}

/// Organizations and their members.
///
/// The only-admin guards are compare-and-set in the store: the adapter checks, in the same transaction as
/// the change (PostgreSQL: locking the organization's member rows), that at least one *other* admin remains,
/// so two admins demoting each other at once cannot leave the organization without one.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait OrgRepository: Send + Sync {
    // Every write but `add_member` (used by tests and fixtures only) takes the audit entry recording it and
    // appends it in the write's own transaction.
    /// Inserts the organization and its first member (an admin) in one transaction.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("organization")` when the id exists; [`RepoError::Backend`] when the store
    /// fails.
    async fn create(
        &self,
        org: &Organization,
        first_admin: &Member,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// Like [`OrgRepository::create`], but only when `first_admin.user_id` belongs to no organization; the
    /// check and the insert are one transaction serialised per user, so two first sign-ins at once create
    /// one personal organization (and `audit` is appended only by the call that created it).
    ///
    /// # Errors
    /// [`RepoError::Conflict`]`(`[`CONFLICT_HAS_ORGANIZATION`]`)` when the user already has one;
    /// [`RepoError::Backend`] when the store fails.
    async fn create_personal(
        &self,
        org: &Organization,
        first_admin: &Member,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// One organization.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn get(&self, org: OrgId) -> Result<Option<Organization>, RepoError>;

    /// The organization with its members (as [`Self::members`]) and its open invitations (as
    /// [`InviteRepository::pending`]), read together: one read of the store, so all three are of one
    /// moment (`GET /api/orgs/{orgId}`). `None` when the organization does not exist.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn contents(&self, org: OrgId) -> Result<Option<OrgContents>, RepoError>;

    /// Every organization the user belongs to, with the user's role, oldest membership first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_for_user(&self, user: UserId) -> Result<Vec<OrgMembership>, RepoError>;

    /// Replaces the name and profile, sets `updated_at`, and answers the stored organization.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization does not exist; [`RepoError::Backend`] when the store
    /// fails.
    async fn update_profile(
        &self,
        org: OrgId,
        name: &str,
        profile: &OrgProfile,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<Organization, RepoError>;

    /// Sets whether the organization requires a second factor of its members, sets `updated_at`, appends
    /// `audit` in the same transaction, and answers the stored organization.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization does not exist; [`RepoError::Backend`] when the store
    /// fails.
    async fn set_two_factor_requirement(
        &self,
        org: OrgId,
        required: bool,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<Organization, RepoError>;

    /// Deletes the organization with its members, invitations and image rows, but only when it owns no
    /// app; the check and the delete are one transaction (an app registered meanwhile makes it fail, never
    /// orphaned). Answers the ids of the image rows removed, whose files the caller deletes.
    ///
    /// # Errors
    /// [`RepoError::Conflict`]`(`[`CONFLICT_APPS_REMAIN`]`)` when apps remain; [`RepoError::NotFound`] when
    /// the organization does not exist; [`RepoError::Backend`] when the store fails.
    async fn delete(&self, org: OrgId, audit: &AuditEntry) -> Result<Vec<ImageId>, RepoError>;

    /// The members with their e-mail addresses, oldest first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn members(&self, org: OrgId) -> Result<Vec<Member>, RepoError>;

    /// Adds a member.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`(`[`DUPLICATE_MEMBER`]`)` when the user is already a member;
    /// [`RepoError::NotFound`] when the organization does not exist; [`RepoError::Backend`] when the store
    /// fails.
    async fn add_member(&self, org: OrgId, member: &Member) -> Result<(), RepoError>;

    /// Sets a member's role; demoting the last admin is refused (compare-and-set, see the trait).
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the user is not a member; [`RepoError::Conflict`]`(`[`CONFLICT_LAST_ADMIN`]`)`
    /// when the user is the only admin and `role` is not admin; [`RepoError::Backend`] when the store fails.
    async fn set_role(
        &self,
        org: OrgId,
        user: UserId,
        role: OrgRole,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// Removes a member (removal by an admin, or leaving); removing the last admin is refused
    /// (compare-and-set, see the trait). The member's apps stay with the organization.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the user is not a member; [`RepoError::Conflict`]`(`[`CONFLICT_LAST_ADMIN`]`)`
    /// when the user is the only admin; [`RepoError::Backend`] when the store fails.
    async fn remove_member(&self, org: OrgId, user: UserId, audit: &AuditEntry) -> Result<(), RepoError>;
}

/// Organization invitations. Every write that sends an e-mail puts the rendered e-mail into the outbox in
/// the same transaction (PRODUCT.md §2), and every write appends the audit entry it is given in its own
/// transaction.
///
/// An invitation is *open* while it is neither accepted nor cancelled; at most one open invitation exists
/// per organization and e-mail address.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait InviteRepository: Send + Sync {
    /// Stores a new invitation and queues its e-mail, in one transaction. An open invitation of the same
    /// organization and address that has expired at `invite.invited_at` is cancelled in that transaction
    /// (re-inviting after expiry replaces it).
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`(`[`DUPLICATE_INVITE`]`)` when an open, unexpired invitation exists for the
    /// organization and address; [`RepoError::Conflict`]`(`[`CONFLICT_OPEN_INVITES`]`)` when the
    /// organization has [`MAX_OPEN_INVITES_PER_ORG`](super::invite_limits::MAX_OPEN_INVITES_PER_ORG) open,
    /// unexpired invitations, counted inside this write; [`RepoError::Backend`] when the store fails.
    async fn create(
        &self,
        invite: &Invite,
        email: &OutgoingEmail,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// The organization's open invitations (expired ones included, so the screen can mark them), oldest
    /// first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn pending(&self, org: OrgId) -> Result<Vec<Invite>, RepoError>;

    /// The invitation whose current token has this digest, whatever its state. The token is the only thing
    /// the invitee has, so this lookup is not scoped to an organization; the digest is unguessable.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find_by_token_hash(&self, token_hash: &str) -> Result<Option<Invite>, RepoError>;

    /// Resends the open invitation of `email`, in one transaction: replaces the token digest (the old link
    /// stops working), sets the expiry, increments `email_sent_count`, queues the e-mail; answers the stored
    /// invitation. Compare-and-set: only an open invitation unexpired at `now` whose e-mail count is still
    /// `sent_count_was` (the count the resend was decided on) is changed, so resends sent at once send one
    /// e-mail.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no open invitation for the address;
    /// [`RepoError::Conflict`]`(`[`CONFLICT_INVITE_EXPIRED`]`)` when it has expired at `now`;
    /// [`RepoError::Conflict`]`(`[`CONFLICT_INVITE_RESENT`]`)` when its e-mail count is no longer
    /// `sent_count_was`; [`RepoError::Backend`] when the store fails.
    #[allow(clippy::too_many_arguments)] // the change, its e-mail and its audit entry, written together
    async fn resend(
        &self,
        org: OrgId,
        email: &EmailAddress,
        sent_count_was: u32,
        new_token_hash: &str,
        new_expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
        outgoing: &OutgoingEmail,
        audit: &AuditEntry,
    ) -> Result<Invite, RepoError>;

    /// Cancels the open invitation of `email` (its link stops working).
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no open invitation for the address; [`RepoError::Backend`] when
    /// the store fails.
    async fn rescind(
        &self,
        org: OrgId,
        email: &EmailAddress,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// Accepts the invitation, in one transaction: marks it accepted at `member.joined_at` and adds
    /// `member` — only while, inside that write, it is open, still carries `token_hash` (a resend racing
    /// the accept replaces the token, and the old link must not get through) and has not expired at
    /// `member.joined_at`.
    ///
    /// # Errors
    /// [`RepoError::Conflict`]`(`[`CONFLICT_INVITE_CLOSED`]`)` when it was accepted or cancelled meanwhile;
    /// [`RepoError::Conflict`]`(`[`CONFLICT_INVITE_EXPIRED`]`)` when it has expired;
    /// [`RepoError::Duplicate`]`(`[`DUPLICATE_MEMBER`]`)` when the user is already a member (nothing is
    /// changed); [`RepoError::NotFound`] when the invitation or organization does not exist or the token
    /// was replaced; [`RepoError::Backend`] when the store fails.
    async fn accept(
        &self,
        org: OrgId,
        invite: InviteId,
        token_hash: &str,
        member: &Member,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;
}
