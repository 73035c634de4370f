//! The organization's profile: the settings form (name, contact e-mail, website, description, logo) and
//! the write recorded with each field that changed.

use super::OrgService;
use crate::audit::{AuditAction, AuditTarget};
use crate::common::{Caller, RepoError};
use crate::orgs::errors::OrgError;
use crate::orgs::{
    ActingMember, OrgAction, OrgProfileInput, Organization, ValidProfileUpdate, validate_profile_update,
};

impl OrgService {
    /// Saves the settings form (admins only): name, contact e-mail (required here), website, description,
    /// logo.
    ///
    /// # Errors
    /// [`OrgError::NotFound`], [`OrgError::AdminOnly`]; [`OrgError::Validation`] as
    /// [`validate_profile_update`]; [`OrgError::Repo`] when the store fails.
    pub async fn update_profile(
        &self,
        member: &ActingMember,
        input: &OrgProfileInput,
    ) -> Result<Organization, OrgError> {
        Self::allow(member, OrgAction::ManageProfile)?;
        let valid = validate_profile_update(input).map_err(OrgError::Validation)?;
        let current = self.existing(member.org()).await?;
        self.write_valid_profile(member.caller(), &current, valid).await
    }

    /// Validates and stores the profile of `current`, for a caller whose right to do so is established.
    pub(super) async fn write_profile(
        &self,
        caller: &Caller,
        current: &Organization,
        input: &OrgProfileInput,
    ) -> Result<Organization, OrgError> {
        let valid = validate_profile_update(input).map_err(OrgError::Validation)?;
        self.write_valid_profile(caller, current, valid).await
    }

    /// Stores a validated profile, recorded with each field that changed.
    async fn write_valid_profile(
        &self,
        caller: &Caller,
        current: &Organization,
        valid: ValidProfileUpdate,
    ) -> Result<Organization, OrgError> {
        let org = current.id;
        let (old, new) = (&current.profile, &valid.profile);
        let email = |e: &Option<crate::common::EmailAddress>| e.as_ref().map(|e| e.as_str().to_owned());
        let audit = self
            .audit(caller, AuditAction::OrgUpdated, org)
            .on(AuditTarget::organization(org))
            .change("name", current.name.as_str(), valid.name.as_str())
            .change("website", old.website.clone(), new.website.clone())
            .change(
                "contactEmail",
                email(&old.contact_email),
                email(&new.contact_email),
            )
            .change("description", old.description.clone(), new.description.clone())
            .change("logo", old.logo.clone(), new.logo.clone());
        match self
            .orgs
            .update_profile(org, &valid.name, &valid.profile, self.clock.now(), &audit)
            .await
        {
            Err(RepoError::NotFound) => Err(OrgError::NotFound),
            other => Ok(other?),
        }
    }
}
