//! Organization use cases (PRODUCT.md §3, specification §2 Organization Settings and Members).
//!
//! Every use case on an existing organization takes the caller's membership, an [`ActingMember`] read once
//! for the request (a non-member has none, and the HTTP layer answers 404 so that organization ids do not
//! leak), and only checks its role: a member whose role does not allow the action ([`OrgRole::can`]) gets
//! [`OrgError::AdminOnly`]. The invitation use cases are [`InvitationService`]'s (`service/invitations.rs`),
//! the members' (role,
//! removal, leaving) in `service/members.rs`, the profile's in `service/profile.rs`, the second-factor
//! requirement's in `service/two_factor.rs`.
//!
//! `DELETE /api/orgs/{orgId}/members/{memberId}` is [`OrgService::leave_or_remove`]: leaving when
//! `memberId` is the caller, removing another member otherwise.

mod invitations;
mod invite_preview;
mod members;
#[cfg(test)]
mod permission_tests;
mod profile;
#[cfg(test)]
mod test_support;
mod two_factor;

use std::sync::Arc;

use super::errors::OrgError;
use super::ports::{CONFLICT_APPS_REMAIN, CONFLICT_HAS_ORGANIZATION, OrgRepository};
use super::{
    ActingMember, FieldErrors, Member, OrgAction, OrgDetails, OrgMembership, OrgProfileInput, OrgRole,
    Organization, personal_org_name, validate_org_name, validate_profile_update,
};
use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::{Caller, Clock, OrgId, RepoError, SecretGenerator};
use crate::media::ImageStore;
use crate::media::models::storage_key;

pub use invitations::{AcceptedInvite, InvitationService};
pub use invite_preview::{
    InviteLinkStatus, InvitePreview, PREVIEW_WINDOW_SECS, PREVIEWS_PER_CLIENT, email_hint,
};

/// The answer of [`OrgService::ensure_personal_org`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonalOrgOutcome {
    /// Whether a personal organization was created by this call (the screen then says so).
    pub created: bool,
    /// The caller's organizations afterwards.
    pub organizations: Vec<OrgMembership>,
}

/// The ports and settings the organization use cases need.
/// The outcome of deleting an organization: files of its images that could not be removed (their rows are
/// gone, so nothing refers to them); the HTTP layer logs them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrgDeleted {
    pub unremoved_files: Vec<String>,
}

pub struct OrgService {
    orgs: Arc<dyn OrgRepository>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    /// Where image files live (deleting an organization removes its images).
    images: Arc<dyn ImageStore>,
}

fn is_conflict(error: &RepoError, value: &str) -> bool {
    matches!(error, RepoError::Conflict(v) if v == value)
}

impl OrgService {
    #[must_use]
    pub fn new(
        orgs: Arc<dyn OrgRepository>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        images: Arc<dyn ImageStore>,
    ) -> Self {
        Self {
            orgs,
            clock,
            secrets,
            images,
        }
    }

    /// The member's role, provided it allows `action`. The membership itself was read once for the request,
    /// by [`ActingMember::resolve`] (a non-member has no [`ActingMember`]: the HTTP layer answers 404).
    ///
    /// # Errors
    /// [`OrgError::AdminOnly`] when the role may not do `action`.
    /// A member held back by the organization's second-factor requirement (resolved to leave, see
    /// [`ActingMember::resolve_to_leave`]) may only leave: anything else is
    /// [`OrgError::SecondFactorRequired`].
    pub const fn allow(member: &ActingMember, action: OrgAction) -> Result<OrgRole, OrgError> {
        if member.is_held_back() && !matches!(action, OrgAction::Leave) {
            Err(OrgError::SecondFactorRequired)
        } else if member.can(action) {
            Ok(member.role())
        } else {
            Err(OrgError::AdminOnly)
        }
    }

    async fn existing(&self, org: OrgId) -> Result<Organization, OrgError> {
        self.orgs.get(org).await?.ok_or(OrgError::NotFound)
    }

    /// The audit entry of `action` by `caller` in `org`, now.
    pub(crate) fn audit(&self, caller: &Caller, action: AuditAction, org: OrgId) -> AuditEntry {
        AuditEntry::by(self.secrets.as_ref(), caller, action, self.clock.now()).in_org(org)
    }

    fn first_admin(&self, caller: &Caller) -> Member {
        Member {
            user_id: caller.user_id,
            email: caller.email.clone(),
            role: OrgRole::Admin,
            joined_at: self.clock.now(),
            has_two_factor: false,
        }
    }

    /// The caller's organizations with the caller's role in each (`GET /api/orgs`).
    ///
    /// # Errors
    /// [`OrgError::Repo`] when the store fails.
    pub async fn list_mine(&self, caller: &Caller) -> Result<Vec<OrgMembership>, OrgError> {
        Ok(self.orgs.list_for_user(caller.user_id).await?)
    }

    /// Creates the caller's personal organization (named per specification §3, the caller its admin) when
    /// the caller belongs to none; called on sign-in. Race-free: two concurrent calls create one.
    ///
    /// # Errors
    /// [`OrgError::Repo`] when the store fails.
    pub async fn ensure_personal_org(&self, caller: &Caller) -> Result<PersonalOrgOutcome, OrgError> {
        let existing = self.orgs.list_for_user(caller.user_id).await?;
        if !existing.is_empty() {
            return Ok(PersonalOrgOutcome {
                created: false,
                organizations: existing,
            });
        }
        let org = Organization::new(personal_org_name(caller.email.as_str()), self.clock.now());
        let audit = self
            .audit(caller, AuditAction::OrgCreated, org.id)
            .on(AuditTarget::organization(org.id))
            .change("name", serde_json::Value::Null, org.name.as_str());
        match self
            .orgs
            .create_personal(&org, &self.first_admin(caller), &audit)
            .await
        {
            Ok(()) => Ok(PersonalOrgOutcome {
                created: true,
                organizations: vec![OrgMembership {
                    organization: org,
                    role: OrgRole::Admin,
                }],
            }),
            Err(error) if is_conflict(&error, CONFLICT_HAS_ORGANIZATION) => Ok(PersonalOrgOutcome {
                created: false,
                organizations: self.orgs.list_for_user(caller.user_id).await?,
            }),
            Err(error) => Err(error.into()),
        }
    }

    /// Creates an organization with just a name (`POST /api/orgs {name}`); the caller becomes its admin.
    /// The profile (contact e-mail…) is completed later in the settings form.
    ///
    /// # Errors
    /// [`OrgError::Validation`] (`name`) for an empty or overlong name; [`OrgError::Repo`] when the store
    /// fails.
    pub async fn create(&self, caller: &Caller, name: &str) -> Result<OrgMembership, OrgError> {
        let name = validate_org_name(name)
            .map_err(|message| OrgError::Validation(FieldErrors::single("name", message)))?;
        let org = Organization::new(name, self.clock.now());
        let audit = self
            .audit(caller, AuditAction::OrgCreated, org.id)
            .on(AuditTarget::organization(org.id))
            .change("name", serde_json::Value::Null, org.name.as_str());
        self.orgs.create(&org, &self.first_admin(caller), &audit).await?;
        Ok(OrgMembership {
            organization: org,
            role: OrgRole::Admin,
        })
    }

    /// Creates an organization as [`OrgService::create`] does and, given a contact e-mail, stores it in the
    /// profile at once (`POST /api/orgs {name, contactEmail}`). The address is checked before anything is
    /// made, so that a bad one leaves no organization behind.
    ///
    /// # Errors
    /// As [`OrgService::create`]; [`OrgError::Validation`] as [`validate_profile_update`] for the address.
    pub async fn create_with_contact(
        &self,
        caller: &Caller,
        name: &str,
        contact_email: Option<&str>,
    ) -> Result<OrgMembership, OrgError> {
        let profile = contact_email
            .filter(|e| !e.trim().is_empty())
            .map(|email| OrgProfileInput {
                name: name.to_owned(),
                contact_email: Some(email.to_owned()),
                ..OrgProfileInput::default()
            });
        if let Some(input) = &profile {
            validate_profile_update(input).map_err(OrgError::Validation)?;
        }
        let mut created = self.create(caller, name).await?;
        if let Some(input) = profile {
            created.organization = self.write_profile(caller, &created.organization, &input).await?;
        }
        Ok(created)
    }

    /// The organization with the caller's role, its members and its open invitations (any member).
    ///
    /// # Errors
    /// [`OrgError::NotFound`] for a non-member or a missing organization; [`OrgError::Repo`] when the store
    /// fails.
    pub async fn get(&self, member: &ActingMember) -> Result<OrgDetails, OrgError> {
        let role = Self::allow(member, OrgAction::View)?;
        // One read for the three (one hand-off to the store and one connection, not three).
        let contents = self
            .orgs
            .contents(member.org())
            .await?
            .ok_or(OrgError::NotFound)?;
        let now = self.clock.now();
        Ok(OrgDetails {
            organization: contents.organization,
            role,
            members: contents.members,
            pending_invites: contents
                .pending_invites
                .iter()
                .map(|invite| invite.summary(now))
                .collect(),
        })
    }

    /// Deletes the organization (admins only) when it owns no app.
    ///
    /// # Errors
    /// [`OrgError::NotFound`], [`OrgError::AdminOnly`]; [`OrgError::AppsRemain`] when it still owns apps;
    /// [`OrgError::Repo`] when the store fails.
    pub async fn delete(&self, member: &ActingMember) -> Result<OrgDeleted, OrgError> {
        Self::allow(member, OrgAction::ManageProfile)?;
        let org = member.org();
        let audit = self
            .audit(member.caller(), AuditAction::OrgDeleted, org)
            .on(AuditTarget::organization(org));
        let images = match self.orgs.delete(org, &audit).await {
            Ok(images) => images,
            Err(RepoError::NotFound) => return Err(OrgError::NotFound),
            Err(error) if is_conflict(&error, CONFLICT_APPS_REMAIN) => return Err(OrgError::AppsRemain),
            Err(error) => return Err(error.into()),
        };
        let mut outcome = OrgDeleted::default();
        for id in images {
            let key = storage_key(id);
            if self.images.delete(&key).await.is_err() {
                outcome.unremoved_files.push(key);
            }
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;
    use crate::common::EmailAddress;
    use crate::orgs::OrgContents;
    use crate::orgs::ports::CONFLICT_LAST_ADMIN;
    use crate::testing::{block_on, noon};
    use mockall::predicate::{always, eq};

    #[test]
    fn my_organizations_are_listed_with_my_role() {
        let mut mocks = Mocks::new();
        mocks
            .orgs
            .expect_list_for_user()
            .with(eq(ME))
            .returning(|_| Ok(vec![membership(OrgRole::Member)]));
        let orgs = block_on(mocks.build().list_mine(&me())).unwrap();
        assert_eq!(orgs, vec![membership(OrgRole::Member)]);
    }

    #[test]
    fn a_user_without_an_organization_gets_a_personal_one_as_its_admin() {
        let mut mocks = Mocks::new();
        mocks
            .orgs
            .expect_list_for_user()
            .times(1)
            .returning(|_| Ok(Vec::new()));
        mocks
            .orgs
            .expect_create_personal()
            .withf(|org, admin, audit| {
                org.name == "admin's Organization"
                    && admin.user_id == ME
                    && admin.role == OrgRole::Admin
                    && admin.joined_at == noon()
                    && audit.action == AuditAction::OrgCreated
                    && audit.org_id == Some(org.id)
                    && audit.changes.iter().map(|c| c.field.as_str()).eq(["name"])
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        let outcome = block_on(mocks.build().ensure_personal_org(&me())).unwrap();
        assert!(outcome.created);
        assert_eq!(outcome.organizations.len(), 1);
        assert_eq!(outcome.organizations[0].role, OrgRole::Admin);
        assert_eq!(outcome.organizations[0].organization.name, "admin's Organization");
    }

    #[test]
    fn a_user_with_an_organization_gets_no_personal_one() {
        let mut mocks = Mocks::new();
        mocks
            .orgs
            .expect_list_for_user()
            .returning(|_| Ok(vec![membership(OrgRole::Member)]));
        let outcome = block_on(mocks.build().ensure_personal_org(&me())).unwrap();
        assert!(!outcome.created);
        assert_eq!(outcome.organizations.len(), 1);
    }

    #[test]
    fn a_personal_organization_created_concurrently_is_not_created_twice() {
        let mut mocks = Mocks::new();
        let mut calls = 0;
        mocks.orgs.expect_list_for_user().times(2).returning(move |_| {
            calls += 1;
            Ok(if calls == 1 {
                Vec::new()
            } else {
                vec![membership(OrgRole::Admin)]
            })
        });
        mocks
            .orgs
            .expect_create_personal()
            .returning(|_, _, _| Err(RepoError::Conflict(CONFLICT_HAS_ORGANIZATION.into())));
        let outcome = block_on(mocks.build().ensure_personal_org(&me())).unwrap();
        assert!(!outcome.created);
        assert_eq!(outcome.organizations, vec![membership(OrgRole::Admin)]);
    }

    #[test]
    fn creating_needs_only_a_name_and_makes_the_caller_admin() {
        let mut mocks = Mocks::new();
        mocks
            .orgs
            .expect_create()
            .withf(|org, admin, _| org.name == "Acme Labs" && admin.user_id == ME && admin.is_admin())
            .times(1)
            .returning(|_, _, _| Ok(()));
        let created = block_on(mocks.build().create(&me(), "  Acme Labs ")).unwrap();
        assert_eq!(created.role, OrgRole::Admin);
        assert_eq!(created.organization.profile.contact_email, None);
        assert!(!created.organization.is_profile_complete());
    }

    #[test]
    fn creating_without_a_name_is_refused_with_the_specifications_message() {
        let error = block_on(Mocks::new().build().create(&me(), " ")).unwrap_err();
        assert_eq!(error.to_string(), "Organization name is required");
        assert_eq!(
            error.fields().and_then(|f| f.get("name")),
            Some("Organization name is required")
        );
    }

    #[test]
    fn a_member_sees_the_organization_its_members_and_pending_invites() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Member));
        mocks
            .orgs
            .expect_contents()
            .with(eq(ORG))
            .times(1)
            .returning(|_| {
                Ok(Some(OrgContents {
                    organization: org(),
                    members: vec![member(ME, OrgRole::Member), member(OTHER, OrgRole::Admin)],
                    pending_invites: vec![open_invite("new@example.com", noon())],
                }))
            });
        let details = block_on(mocks.build().get(&me_in(OrgRole::Member))).unwrap();
        assert_eq!(details.role, OrgRole::Member);
        assert_eq!(details.members.len(), 2);
        assert_eq!(details.pending_invites.len(), 1);
        assert_eq!(details.pending_invites[0].email.as_str(), "new@example.com");
    }

    #[test]
    fn an_expired_invite_is_listed_as_expired() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks.orgs.expect_contents().returning(|_| {
            Ok(Some(OrgContents {
                organization: org(),
                members: Vec::new(),
                pending_invites: vec![open_invite(
                    "late@example.com",
                    noon() - chrono::Duration::days(8),
                )],
            }))
        });
        let details = block_on(mocks.build().get(&me_in(OrgRole::Admin))).unwrap();
        assert_eq!(
            details.pending_invites[0].status,
            crate::orgs::invites::InviteStatus::Expired
        );
    }

    #[test]
    fn an_organization_gone_since_the_membership_was_read_is_not_found() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks.orgs.expect_contents().returning(|_| Ok(None));
        let error = block_on(mocks.build().get(&me_in(OrgRole::Admin))).unwrap_err();
        assert!(matches!(error, OrgError::NotFound), "{error:?}");
    }

    #[test]
    fn an_admin_saves_a_valid_profile() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin)).with_members();
        mocks
            .orgs
            .expect_update_profile()
            .withf(|org, name, profile, now, _| {
                *org == ORG
                    && name == "Acme"
                    && profile.website.as_deref() == Some("https://acme.example.com")
                    && *now == noon()
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(org()));
        let input = OrgProfileInput {
            name: "Acme".into(),
            website: Some("acme.example.com".into()),
            contact_email: Some("dev@acme.example.com".into()),
            ..OrgProfileInput::default()
        };
        assert!(block_on(mocks.build().update_profile(&me_in(OrgRole::Admin), &input)).is_ok());
    }

    #[test]
    fn a_profile_without_a_contact_email_is_refused() {
        let mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        let input = OrgProfileInput {
            name: "Acme".into(),
            ..OrgProfileInput::default()
        };
        let error = block_on(mocks.build().update_profile(&me_in(OrgRole::Admin), &input)).unwrap_err();
        assert_eq!(error.to_string(), "Contact email is required");
    }

    #[test]
    fn deleting_an_organization_with_apps_is_refused() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks
            .orgs
            .expect_delete()
            .returning(|_, _| Err(RepoError::Conflict(CONFLICT_APPS_REMAIN.into())));
        let error = block_on(mocks.build().delete(&me_in(OrgRole::Admin))).unwrap_err();
        assert!(matches!(error, OrgError::AppsRemain));
        assert_eq!(error.to_string(), "Move or delete this organization's apps first");
    }

    #[test]
    fn an_admin_deletes_an_organization_without_apps() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks
            .orgs
            .expect_delete()
            .with(eq(ORG), always())
            .times(1)
            .returning(|_, _| Ok(Vec::new()));
        assert!(block_on(mocks.build().delete(&me_in(OrgRole::Admin))).is_ok());
    }

    #[test]
    fn deleting_an_organization_removes_its_image_files_and_reports_those_that_stay() {
        use crate::common::ImageId;
        let (kept, gone) = (
            ImageId(uuid::Uuid::from_u128(1)),
            ImageId(uuid::Uuid::from_u128(2)),
        );
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks
            .orgs
            .expect_delete()
            .times(1)
            .returning(move |_, _| Ok(vec![kept, gone]));
        mocks.images.expect_delete().times(2).returning(move |key| {
            if key == kept.to_string() {
                Err(RepoError::backend("removing a file", "disk full"))
            } else {
                Ok(())
            }
        });
        let outcome = block_on(mocks.build().delete(&me_in(OrgRole::Admin))).unwrap();
        assert_eq!(outcome.unremoved_files, vec![kept.to_string()]);
    }

    #[test]
    fn an_admin_changes_another_members_role() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin)).with_members();
        mocks
            .orgs
            .expect_set_role()
            .with(eq(ORG), eq(OTHER), eq(OrgRole::Admin), always())
            .withf(|_, _, _, audit| {
                audit.action == AuditAction::MemberRoleChanged
                    && audit.org_id == Some(ORG)
                    && audit.target
                        == Some(
                            AuditTarget::member(OTHER)
                                .with_label(member(OTHER, OrgRole::Member).email.as_str()),
                        )
                    && audit.changes
                        == vec![crate::audit::FieldChange {
                            field: "role".into(),
                            old: serde_json::json!("member"),
                            new: serde_json::json!("admin"),
                        }]
            })
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        assert!(
            block_on(
                mocks
                    .build()
                    .change_role(&me_in(OrgRole::Admin), OTHER, OrgRole::Admin)
            )
            .is_ok()
        );
    }

    #[test]
    fn nobody_changes_their_own_role() {
        let mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        let error = block_on(
            mocks
                .build()
                .change_role(&me_in(OrgRole::Admin), ME, OrgRole::Member),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::OwnRole));
    }

    #[test]
    fn the_only_admin_cannot_be_demoted() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin)).with_members();
        mocks
            .orgs
            .expect_set_role()
            .returning(|_, _, _, _| Err(RepoError::Conflict(CONFLICT_LAST_ADMIN.into())));
        let error = block_on(
            mocks
                .build()
                .change_role(&me_in(OrgRole::Admin), OTHER, OrgRole::Member),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::OnlyAdminCannotBeDemoted));
    }

    #[test]
    fn changing_the_role_of_a_non_member_is_not_found() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin)).with_members();
        mocks
            .orgs
            .expect_set_role()
            .returning(|_, _, _, _| Err(RepoError::NotFound));
        let error = block_on(
            mocks
                .build()
                .change_role(&me_in(OrgRole::Admin), OTHER, OrgRole::Member),
        )
        .unwrap_err();
        assert!(matches!(error, OrgError::MemberNotFound));
    }

    #[test]
    fn an_admin_removes_another_member() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin)).with_members();
        mocks
            .orgs
            .expect_remove_member()
            .with(eq(ORG), eq(OTHER), always())
            .times(1)
            .returning(|_, _, _| Ok(()));
        assert!(block_on(mocks.build().remove_member(&me_in(OrgRole::Admin), OTHER)).is_ok());
    }

    #[test]
    fn nobody_removes_themselves_they_leave_instead() {
        let mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        let error = block_on(mocks.build().remove_member(&me_in(OrgRole::Admin), ME)).unwrap_err();
        assert!(matches!(error, OrgError::RemoveSelf));
    }

    #[test]
    fn the_only_admin_cannot_be_removed() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin)).with_members();
        mocks
            .orgs
            .expect_remove_member()
            .returning(|_, _, _| Err(RepoError::Conflict(CONFLICT_LAST_ADMIN.into())));
        let error = block_on(mocks.build().remove_member(&me_in(OrgRole::Admin), OTHER)).unwrap_err();
        assert!(matches!(error, OrgError::OnlyAdminCannotBeRemoved));
    }

    #[test]
    fn a_member_leaves() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Member));
        mocks
            .orgs
            .expect_remove_member()
            .with(eq(ORG), eq(ME), always())
            .times(1)
            .returning(|_, _, _| Ok(()));
        assert!(block_on(mocks.build().leave(&me_in(OrgRole::Member))).is_ok());
    }

    #[test]
    fn naming_oneself_leaves_and_naming_another_removes_them() {
        let mut mocks = Mocks::new().with_members();
        mocks
            .orgs
            .expect_remove_member()
            .with(eq(ORG), eq(ME), always())
            .times(1)
            .returning(|_, _, _| Ok(()));
        mocks
            .orgs
            .expect_remove_member()
            .with(eq(ORG), eq(OTHER), always())
            .times(1)
            .returning(|_, _, _| Ok(()));
        let service = mocks.build();
        assert!(block_on(service.leave_or_remove(&me_in(OrgRole::Member), ME)).is_ok());
        let refused = block_on(service.leave_or_remove(&me_in(OrgRole::Member), OTHER)).unwrap_err();
        assert!(matches!(refused, OrgError::AdminOnly));
        assert!(block_on(service.leave_or_remove(&me_in(OrgRole::Admin), OTHER)).is_ok());
    }

    #[test]
    fn a_new_organization_with_a_bad_contact_address_is_not_made() {
        let mut mocks = Mocks::new();
        mocks.orgs.expect_create().never();
        let error = block_on(
            mocks
                .build()
                .create_with_contact(&me(), "Acme", Some("not-an-address")),
        )
        .unwrap_err();
        assert!(
            matches!(&error, OrgError::Validation(fields) if fields.get("contactEmail").is_some()),
            "{error:?}"
        );
    }

    #[test]
    fn a_new_organization_with_a_contact_address_stores_it_in_its_profile() {
        let mut mocks = Mocks::new();
        mocks.orgs.expect_create().times(1).returning(|_, _, _| Ok(()));
        mocks
            .orgs
            .expect_update_profile()
            .withf(|_, name, profile, _, _| {
                name == "Acme"
                    && profile.contact_email.as_ref().map(EmailAddress::as_str) == Some("ops@acme.example")
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(org()));
        let created = block_on(
            mocks
                .build()
                .create_with_contact(&me(), "Acme", Some("ops@acme.example")),
        )
        .unwrap();
        assert_eq!(created.role, OrgRole::Admin);
    }

    #[test]
    fn the_only_admin_cannot_leave() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin)).with_members();
        mocks
            .orgs
            .expect_remove_member()
            .returning(|_, _, _| Err(RepoError::Conflict(CONFLICT_LAST_ADMIN.into())));
        let error = block_on(mocks.build().leave(&me_in(OrgRole::Admin))).unwrap_err();
        assert_eq!(
            error.to_string(),
            "You cannot leave the organization as you are the only admin. Please promote another member to \
             admin first."
        );
    }

    #[test]
    fn an_unexpected_conflict_is_passed_on_as_a_repository_error() {
        let mut mocks = Mocks::new().with_role(Some(OrgRole::Admin));
        mocks
            .orgs
            .expect_delete()
            .returning(|_, _| Err(RepoError::Conflict("something_else".into())));
        let error = block_on(mocks.build().delete(&me_in(OrgRole::Admin))).unwrap_err();
        assert!(matches!(error, OrgError::Repo(RepoError::Conflict(_))));
    }
}
