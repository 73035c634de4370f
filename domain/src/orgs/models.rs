//! Organization entities and the role permission table.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::common::{EmailAddress, OrgId, UserId};
use crate::membership::OrgRole;

/// The organization profile. Publishing needs a name and a contact e-mail.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrgProfile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_email: Option<EmailAddress>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<String>,
}

/// An organization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    pub id: OrgId,
    pub name: String,
    pub profile: OrgProfile,
    /// Whether every member needs a second factor to act in it (PRODUCT.md §1a): set by an admin whose
    /// own session passed one.
    #[serde(default)]
    pub require_two_factor: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A member of an organization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub user_id: UserId,
    pub email: EmailAddress,
    pub role: OrgRole,
    pub joined_at: DateTime<Utc>,
    /// Whether the account has a verified second factor (as the built-in identity service knows it).
    #[serde(default)]
    pub has_two_factor: bool,
}

// ---------------------------------------------------------------------------------------------------------
// Profile rules (specification §5 "Organization create and update", PRODUCT.md §3).
//
// Creation (`POST /api/orgs {name}`, specification §7) carries only a name, so creating needs only a valid
// name ([`validate_org_name`]). The contact-email rules apply to the settings form (`PUT /api/orgs/{orgId}`,
// [`validate_profile_update`]), which sends the whole profile. An organization created without a contact
// e-mail is valid but incomplete ([`Organization::is_profile_complete`]): the banner asks for one and
// publishing is refused until it is set.
// ---------------------------------------------------------------------------------------------------------

use crate::common::email::INVALID_EMAIL;
use crate::common::url::{INVALID_URL, MAX_URL_LEN};
use crate::common::{PublicUrl, UrlError, normalise_url};

/// Specification §5.
pub const ORG_NAME_REQUIRED: &str = "Organization name is required";
/// Specification §5.
pub const CONTACT_EMAIL_REQUIRED: &str = "Contact email is required";
/// Specification §8: shown when an organization-scoped action has no organization. The product API always
/// carries the organization in its path (`/api/orgs/{orgId}/…`), so the HTTP layer answers this (400) when
/// an `x-org-id`/`orgId` is missing; the services take a plain [`OrgId`].
pub const NO_ORGANIZATION_SELECTED: &str = "No organization selected";

/// Longest organization name (characters).
pub const MAX_ORG_NAME_LEN: usize = 100;
/// Longest organization description (characters).
pub const MAX_ORG_DESCRIPTION_LEN: usize = 2000;
pub const ORG_NAME_TOO_LONG: &str = "Organization name must be at most 100 characters";
pub const ORG_DESCRIPTION_TOO_LONG: &str = "Description must be at most 2000 characters";

/// The suffix of a personal organization's name (specification §3).
pub const PERSONAL_ORG_SUFFIX: &str = "'s Organization";
/// The name used when the e-mail has no usable local part (specification §3).
pub const PERSONAL_ORG_FALLBACK_OWNER: &str = "User";

pub use crate::common::FieldErrors;

/// Checks an organization name: trimmed, required, at most [`MAX_ORG_NAME_LEN`] characters. Names need not be
/// unique (PRODUCT.md §3).
///
/// # Errors
/// [`ORG_NAME_REQUIRED`] when empty; [`ORG_NAME_TOO_LONG`] when too long.
pub fn validate_org_name(input: &str) -> Result<String, &'static str> {
    let name = input.trim();
    if name.is_empty() {
        Err(ORG_NAME_REQUIRED)
    } else if name.chars().count() > MAX_ORG_NAME_LEN {
        Err(ORG_NAME_TOO_LONG)
    } else {
        Ok(name.to_owned())
    }
}

/// The settings form as submitted (`PUT /api/orgs/{orgId}`): raw text, validated by
/// [`validate_profile_update`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrgProfileInput {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub website: Option<String>,
    #[serde(default)]
    pub contact_email: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub logo: Option<String>,
}

/// A validated settings form: the trimmed name and the normalised profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidProfileUpdate {
    pub name: String,
    pub profile: OrgProfile,
}

fn non_empty(value: Option<&String>) -> Option<&str> {
    value.map(|v| v.trim()).filter(|v| !v.is_empty())
}

/// Checks a logo reference: the URL the image upload answered. It is not normalised (a self-hosted server
/// may serve images over plain `http://` or from a path), but it must be an `http(s)://` URL or an absolute
/// path, without white space, at most 2048 characters.
fn valid_logo(logo: &str) -> bool {
    let lower = logo.to_ascii_lowercase();
    let shape_ok = lower.starts_with("https://") || lower.starts_with("http://") || logo.starts_with('/');
    shape_ok && logo.len() <= MAX_URL_LEN && !logo.chars().any(char::is_whitespace)
}

/// Validates the settings form: name required; contact e-mail required and valid; website optional,
/// normalised (`normalise_url`) and valid; description optional, at most 2000 characters; logo optional.
/// Empty optional values become `None`.
///
/// # Errors
/// [`FieldErrors`] with every failing field (`name`, `contactEmail`, `website`, `description`, `logo`).
pub fn validate_profile_update(input: &OrgProfileInput) -> Result<ValidProfileUpdate, FieldErrors> {
    let mut errors = FieldErrors::default();
    let name = validate_org_name(&input.name)
        .map_err(|message| errors.add("name", message))
        .ok();
    let contact_email = match non_empty(input.contact_email.as_ref()) {
        None => {
            errors.add("contactEmail", CONTACT_EMAIL_REQUIRED);
            None
        }
        Some(text) => EmailAddress::parse(text)
            .map_err(|_| errors.add("contactEmail", INVALID_EMAIL))
            .ok(),
    };
    // Typed as the server URL is: `example.com` is `https://example.com`.
    let website =
        match PublicUrl::parse_optional(&normalise_url(input.website.as_deref().unwrap_or_default())) {
            Ok(url) => url.map(String::from),
            Err(UrlError::Empty | UrlError::Invalid) => {
                errors.add("website", INVALID_URL);
                None
            }
        };
    let description = non_empty(input.description.as_ref()).map(str::to_owned);
    if description
        .as_ref()
        .is_some_and(|d| d.chars().count() > MAX_ORG_DESCRIPTION_LEN)
    {
        errors.add("description", ORG_DESCRIPTION_TOO_LONG);
    }
    let logo = non_empty(input.logo.as_ref()).map(str::to_owned);
    if logo.as_deref().is_some_and(|l| !valid_logo(l)) {
        errors.add("logo", INVALID_URL);
    }
    match (name, errors.is_empty()) {
        (Some(name), true) => Ok(ValidProfileUpdate {
            name,
            profile: OrgProfile {
                website,
                contact_email,
                description,
                logo,
            },
        }),
        _ => Err(errors),
    }
}

/// The name of the organization created for a user who has none (specification §3): the part of the
/// e-mail before the at-sign followed by `'s Organization`, or `User's Organization` when that part is empty.
/// A long local part is shortened so that the name stays within [`MAX_ORG_NAME_LEN`].
#[must_use]
pub fn personal_org_name(email: &str) -> String {
    let local = email.split_once('@').map_or(email, |(local, _)| local).trim();
    let owner = if local.is_empty() {
        PERSONAL_ORG_FALLBACK_OWNER
    } else {
        local
    };
    let room = MAX_ORG_NAME_LEN - PERSONAL_ORG_SUFFIX.chars().count();
    let owner: String = owner.chars().take(room).collect();
    format!("{owner}{PERSONAL_ORG_SUFFIX}")
}

impl Organization {
    /// A new organization with an empty profile and a fresh id.
    #[must_use]
    pub fn new(name: String, now: DateTime<Utc>) -> Self {
        Self {
            id: OrgId::new(),
            name,
            profile: OrgProfile::default(),
            require_two_factor: false,
            created_at: now,
            updated_at: now,
        }
    }

    /// Whether the profile allows publishing: a name and a contact e-mail (specification §5, PRODUCT.md §4).
    #[must_use]
    pub fn is_profile_complete(&self) -> bool {
        !self.name.trim().is_empty() && self.profile.contact_email.is_some()
    }
}

impl Member {
    /// Whether this member is an admin.
    #[must_use]
    pub fn is_admin(&self) -> bool {
        self.role == OrgRole::Admin
    }
}

/// An organization together with the caller's role in it (`GET /api/orgs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrgMembership {
    #[serde(flatten)]
    pub organization: Organization,
    pub role: OrgRole,
}

/// What `GET /api/orgs/{orgId}` shows: the organization, the caller's role, its members and pending invites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrgDetails {
    #[serde(flatten)]
    pub organization: Organization,
    pub role: OrgRole,
    pub members: Vec<Member>,
    pub pending_invites: Vec<super::invites::InviteSummary>,
}

#[cfg(test)]
mod rules_tests {
    use super::*;
    use crate::membership::OrgAction;
    use crate::testing::noon;

    fn form() -> OrgProfileInput {
        OrgProfileInput {
            name: " Acme ".into(),
            website: Some("http://acme.example.com/".into()),
            contact_email: Some(" Dev@Acme.Example.com ".into()),
            description: Some("  We build apps.  ".into()),
            logo: Some("https://cdn.example.com/logo.png".into()),
        }
    }

    #[test]
    fn every_role_may_view_manage_apps_leave_and_receive_apps() {
        for role in [OrgRole::Admin, OrgRole::Member] {
            for action in [
                OrgAction::View,
                OrgAction::ManageApps,
                OrgAction::Leave,
                OrgAction::ReceiveApp,
            ] {
                assert!(role.can(action), "{role:?} {action:?}");
            }
        }
    }

    #[test]
    fn only_admins_may_manage_the_profile_the_members_and_move_apps_out() {
        for action in [
            OrgAction::ManageProfile,
            OrgAction::ManageMembers,
            OrgAction::MoveAppOut,
        ] {
            assert!(OrgRole::Admin.can(action));
            assert!(!OrgRole::Member.can(action));
        }
    }

    #[test]
    fn a_role_reads_its_two_forms_and_defaults_to_member() {
        assert_eq!(OrgRole::parse("admin"), Some(OrgRole::Admin));
        assert_eq!(OrgRole::parse("owner"), None);
        assert_eq!(OrgRole::default(), OrgRole::Member);
    }

    #[test]
    fn a_name_is_trimmed_and_required() {
        assert_eq!(validate_org_name("  Acme  "), Ok("Acme".to_owned()));
        assert_eq!(validate_org_name("   "), Err("Organization name is required"));
    }

    #[test]
    fn a_name_longer_than_one_hundred_characters_is_refused() {
        assert!(validate_org_name(&"a".repeat(100)).is_ok());
        assert_eq!(validate_org_name(&"a".repeat(101)), Err(ORG_NAME_TOO_LONG));
    }

    #[test]
    fn a_complete_settings_form_is_trimmed_and_normalised() {
        let valid = validate_profile_update(&form()).unwrap();
        assert_eq!(valid.name, "Acme");
        assert_eq!(valid.profile.website.as_deref(), Some("https://acme.example.com"));
        assert_eq!(
            valid.profile.contact_email.unwrap().as_str(),
            "dev@acme.example.com"
        );
        assert_eq!(valid.profile.description.as_deref(), Some("We build apps."));
        assert_eq!(
            valid.profile.logo.as_deref(),
            Some("https://cdn.example.com/logo.png")
        );
    }

    #[test]
    fn the_settings_form_requires_a_name() {
        let errors = validate_profile_update(&OrgProfileInput {
            name: String::new(),
            ..form()
        })
        .unwrap_err();
        assert_eq!(errors.get("name"), Some("Organization name is required"));
    }

    #[test]
    fn the_settings_form_requires_a_contact_email() {
        for missing in [None, Some("  ".to_owned())] {
            let errors = validate_profile_update(&OrgProfileInput {
                contact_email: missing,
                ..form()
            })
            .unwrap_err();
            assert_eq!(errors.get("contactEmail"), Some("Contact email is required"));
        }
    }

    #[test]
    fn the_settings_form_refuses_an_invalid_contact_email() {
        let errors = validate_profile_update(&OrgProfileInput {
            contact_email: Some("not-an-address".into()),
            ..form()
        })
        .unwrap_err();
        assert_eq!(
            errors.get("contactEmail"),
            Some("Please enter a valid email address")
        );
    }

    #[test]
    fn a_website_without_a_scheme_is_normalised_as_the_server_url_is() {
        let valid = validate_profile_update(&OrgProfileInput {
            website: Some(" example.com/ ".into()),
            ..form()
        })
        .unwrap();
        assert_eq!(valid.profile.website.as_deref(), Some("https://example.com"));
    }

    #[test]
    fn the_website_is_optional_but_must_be_valid_when_given() {
        let valid = validate_profile_update(&OrgProfileInput {
            website: Some("   ".into()),
            ..form()
        })
        .unwrap();
        assert_eq!(valid.profile.website, None);
        let errors = validate_profile_update(&OrgProfileInput {
            website: Some("not a url".into()),
            ..form()
        })
        .unwrap_err();
        assert_eq!(errors.get("website"), Some("Please enter a valid URL"));
    }

    #[test]
    fn description_and_logo_are_optional() {
        let valid = validate_profile_update(&OrgProfileInput {
            description: None,
            logo: Some(String::new()),
            ..form()
        })
        .unwrap();
        assert_eq!(valid.profile.description, None);
        assert_eq!(valid.profile.logo, None);
    }

    #[test]
    fn an_overlong_description_is_refused() {
        let errors = validate_profile_update(&OrgProfileInput {
            description: Some("x".repeat(2001)),
            ..form()
        })
        .unwrap_err();
        assert_eq!(errors.get("description"), Some(ORG_DESCRIPTION_TOO_LONG));
    }

    #[test]
    fn a_logo_must_be_an_http_url_or_a_path() {
        for good in ["http://127.0.0.1:8080/images/a.png", "/api/images/a.png"] {
            let valid = validate_profile_update(&OrgProfileInput {
                logo: Some(good.into()),
                ..form()
            });
            assert!(valid.is_ok(), "{good}");
        }
        for bad in ["javascript:alert(1)", "logo.png", "https://x.example.com/a b.png"] {
            let errors = validate_profile_update(&OrgProfileInput {
                logo: Some(bad.into()),
                ..form()
            })
            .unwrap_err();
            assert_eq!(errors.get("logo"), Some(INVALID_URL), "{bad}");
        }
    }

    #[test]
    fn every_failing_field_is_reported_and_the_summary_follows_form_order() {
        let errors = validate_profile_update(&OrgProfileInput {
            name: String::new(),
            website: Some("a b".into()),
            contact_email: None,
            description: None,
            logo: None,
        })
        .unwrap_err();
        assert_eq!(errors.len(), 3);
        assert_eq!(errors.to_string(), "Organization name is required");
    }

    #[test]
    fn a_personal_organization_is_named_after_the_local_part() {
        assert_eq!(personal_org_name("john@example.com"), "john's Organization");
    }

    #[test]
    fn a_personal_organization_without_a_local_part_belongs_to_user() {
        assert_eq!(personal_org_name("@example.com"), "User's Organization");
        assert_eq!(personal_org_name(""), "User's Organization");
    }

    #[test]
    fn a_personal_organization_name_stays_within_the_name_limit() {
        let name = personal_org_name(&format!("{}@example.com", "a".repeat(200)));
        assert_eq!(name.chars().count(), MAX_ORG_NAME_LEN);
        assert!(name.ends_with("'s Organization"));
        assert!(validate_org_name(&name).is_ok());
    }

    #[test]
    fn a_profile_is_complete_with_a_name_and_a_contact_email() {
        let mut org = Organization::new("Acme".into(), noon());
        assert!(!org.is_profile_complete());
        org.profile.contact_email = EmailAddress::parse("dev@acme.example.com").ok();
        assert!(org.is_profile_complete());
        org.name = "  ".into();
        assert!(!org.is_profile_complete());
    }

    #[test]
    fn a_membership_serialises_flat_with_the_callers_role() {
        let org = Organization::new("Acme".into(), noon());
        let json = serde_json::to_value(OrgMembership {
            organization: org.clone(),
            role: OrgRole::Admin,
        })
        .unwrap();
        assert_eq!(json["id"], org.id.to_string());
        assert_eq!(json["name"], "Acme");
        assert_eq!(json["role"], "admin");
        assert!(json["createdAt"].is_string());
    }
}
