//! [`OrgScope`]: the organization an org-scoped request names in the `x-org-id` header, checked against
//! the caller's memberships before the handler runs (PRODUCT.md §3: never trusted blindly). A header
//! naming an organization the caller does not belong to is refused with 403 and nothing happens.
//! Requests that name the organization in their path use [`super::OrgMember`] instead.
//!
//! The answer is the domain's [`ActingMember`], read once for the request: the use cases take it and do
//! not read the membership again. The same read says whether the organization requires a second factor
//! (PRODUCT.md §1a); a session that has not passed one is then refused with 403 `ORG_MFA_REQUIRED`, its
//! level taken from authenticating the request (no read of its own).

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use domain::common::{Caller, OrgId};
use domain::identity::Authenticated;
use domain::orgs::{ActingMember, Door, MemberDirectory, MembershipRead, OrgRole, StandingSource};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::principal::Credentials;
use crate::ApiError;

/// The header that names the organization of an org-scoped request (specification §7).
pub const ORG_HEADER: &str = "x-org-id";

/// The `x-org-id` header of every org-scoped route, declared once for the OpenAPI document
/// (`params(OrgHeader, …)` in a route's `#[utoipa::path]`).
#[derive(utoipa::IntoParams)]
#[into_params(names("x-org-id"), parameter_in = Header)]
#[allow(dead_code)] // Read by [`OrgScope`]'s extractor from the request's headers, never built.
pub struct OrgHeader(
    /// The organization the request acts in: one of the caller's.
    String,
);
pub const ORG_REQUIRED: &str = "Choose an organization first: the x-org-id header is missing.";
pub const ORG_MALFORMED: &str = "The x-org-id header is not an organization id.";
pub const NOT_A_MEMBER: &str = "You are not a member of this organization.";

/// Who belongs to which organization: app data of the whole application, for [`OrgScope`].
#[derive(Clone)]
pub struct Memberships(pub Arc<dyn MemberDirectory>);

impl std::fmt::Debug for Memberships {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memberships")
    }
}

/// The caller, and the organization of `x-org-id` with the caller's role in it.
#[derive(Debug, Clone)]
pub struct OrgScope {
    pub caller: Caller,
    pub org: OrgId,
    pub role: OrgRole,
    /// The same, as the domain's proof of membership for use cases that take one.
    member: ActingMember,
}

impl OrgScope {
    /// The caller acting in the `x-org-id` organization, as the directory answered for this request.
    #[must_use]
    pub const fn member(&self) -> &ActingMember {
        &self.member
    }
}

impl FromRequest for OrgScope {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let credentials = Credentials::of(request);
        let memberships = request.app_data::<web::Data<Memberships>>().cloned();
        let header = request
            .headers()
            .get(ORG_HEADER)
            .map(|value| value.to_str().map(|text| text.trim().to_owned()));
        // A well-formed header's organization is read with the session: one statement for both.
        let named = match &header {
            Some(Ok(text)) => text.parse::<OrgId>().ok(),
            _ => None,
        };
        Box::pin(async move {
            // Authentication first: an anonymous caller learns nothing about organizations.
            let (authenticated, read) = credentials.authenticate(named).await?;
            resolve(authenticated, memberships, header, read).await
        })
    }
}

type HeaderValue = Option<Result<String, actix_web::http::header::ToStrError>>;

/// The scope of `header`'s organization: from `read` (the membership read with the session) when it is
/// of that organization, from the member directory otherwise; either way the organization's second-factor
/// requirement is held against the session's level.
async fn resolve(
    authenticated: Authenticated,
    memberships: Option<web::Data<Memberships>>,
    header: HeaderValue,
    read: Option<MembershipRead>,
) -> Result<OrgScope, ApiError> {
    let Some(memberships) = memberships else {
        return Err(ApiError::Internal(
            "the membership directory is not configured".into(),
        ));
    };
    let org = match header {
        Some(Ok(text)) if !text.is_empty() => text
            .parse::<OrgId>()
            .map_err(|_| ApiError::bad_request("ORG_MALFORMED", ORG_MALFORMED))?,
        Some(Err(_)) => return Err(ApiError::bad_request("ORG_MALFORMED", ORG_MALFORMED)),
        None | Some(Ok(_)) => return Err(ApiError::bad_request("ORG_REQUIRED", ORG_REQUIRED)),
    };
    let second_factor = authenticated.second_factor();
    let caller = authenticated.caller;
    let read = read.filter(|read| read.org() == org);
    let source = read.as_ref().map_or(
        StandingSource::Directory(memberships.0.as_ref(), org),
        StandingSource::Read,
    );
    let member = ActingMember::resolve(source, caller, second_factor, Door::Act)
        .await?
        .ok_or_else(|| ApiError::Forbidden(NOT_A_MEMBER.into()))?;
    Ok(OrgScope {
        caller: member.caller().clone(),
        org,
        role: member.role(),
        member,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use domain::common::{RepoError, UserId};
    use domain::identity::models::Aal;

    struct OneMember {
        org: OrgId,
        user: UserId,
        requires_two_factor: bool,
    }

    #[async_trait]
    impl MemberDirectory for OneMember {
        async fn role_of(&self, org: OrgId, user: UserId) -> Result<Option<OrgRole>, RepoError> {
            Ok((org == self.org && user == self.user).then_some(OrgRole::Member))
        }

        async fn standing_of(
            &self,
            org: OrgId,
            user: UserId,
        ) -> Result<Option<domain::orgs::MemberStanding>, RepoError> {
            Ok(self
                .role_of(org, user)
                .await?
                .map(|role| domain::orgs::MemberStanding {
                    role,
                    org_requires_two_factor: self.requires_two_factor,
                }))
        }
    }

    async fn scope_of(header: Option<&str>, caller: &Caller, org: OrgId) -> Result<OrgScope, ApiError> {
        scope_at(header, caller, org, false, Aal::Aal1).await
    }

    async fn scope_at(
        header: Option<&str>,
        caller: &Caller,
        org: OrgId,
        requires_two_factor: bool,
        aal: Aal,
    ) -> Result<OrgScope, ApiError> {
        let memberships = Memberships(Arc::new(OneMember {
            org,
            user: caller.user_id,
            requires_two_factor,
        }));
        let header = header.map(|text| Ok(text.to_owned()));
        let authenticated = Authenticated {
            caller: caller.clone(),
            proof: domain::identity::SessionProof::at(aal, chrono::Utc::now()),
            session_id: None,
            protection: Some(domain::identity::Protection {
                totp: aal == Aal::Aal2,
                ..Default::default()
            }),
            withheld_role: None,
        };
        resolve(authenticated, Some(web::Data::new(memberships)), header, None).await
    }

    #[actix_web::test]
    async fn an_organization_requiring_a_second_factor_is_closed_to_an_aal1_session() {
        let caller = Caller {
            user_id: UserId::new(),
            email: domain::common::EmailAddress::parse("dev@example.com").unwrap(),
            platform_role: None,
            origin: domain::common::ClientOrigin::default(),
        };
        let org = OrgId::new();
        let header = org.to_string();
        let refused = scope_at(Some(&header), &caller, org, true, Aal::Aal1)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), "ORG_MFA_REQUIRED");
        assert!(refused.to_string().contains("requires two-factor authentication"));
        let passed = scope_at(Some(&header), &caller, org, true, Aal::Aal2)
            .await
            .unwrap();
        assert_eq!(passed.org, org);
    }

    #[actix_web::test]
    async fn a_member_gets_the_scope_and_anything_else_is_refused() {
        let caller = Caller {
            user_id: UserId::new(),
            email: domain::common::EmailAddress::parse("dev@example.com").unwrap(),
            platform_role: None,
            origin: domain::common::ClientOrigin::default(),
        };
        let org = OrgId::new();
        let scope = scope_of(Some(&org.to_string()), &caller, org).await.unwrap();
        assert_eq!((scope.org, scope.role), (org, OrgRole::Member));
        assert_eq!(
            (
                scope.member().org(),
                scope.member().role(),
                scope.member().caller()
            ),
            (org, OrgRole::Member, &caller)
        );

        let forged = scope_of(Some(&OrgId::new().to_string()), &caller, org)
            .await
            .unwrap_err();
        assert!(matches!(forged, ApiError::Forbidden(_)), "{forged:?}");
        let missing = scope_of(None, &caller, org).await.unwrap_err();
        assert_eq!(missing.code(), "ORG_REQUIRED");
        let malformed = scope_of(Some("../etc"), &caller, org).await.unwrap_err();
        assert_eq!(malformed.code(), "ORG_MALFORMED");
    }
}
