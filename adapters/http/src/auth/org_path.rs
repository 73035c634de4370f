//! [`OrgMember`]: the caller acting in the organization that an organization route names in its path
//! (`/api/orgs/{orgId}/…`), resolved once for the request before the handler runs.
//!
//! A caller who is not a member (or an id that names no organization) gets 404, as if the organization did
//! not exist. Such routes need no `x-org-id`; a client may still send it, and then it is never trusted
//! blindly (PRODUCT.md §3): it must be an organization id (400), the path's (403), and one the caller
//! belongs to (403). The same membership read answers both questions, and whether the organization requires
//! a second factor the session has not passed (403 `ORG_MFA_REQUIRED`, PRODUCT.md §1a). Leaving stays
//! possible without that factor: the leave route takes [`OrgMemberToLeave`].

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use domain::common::OrgId;
use domain::identity::Authenticated;
use domain::orgs::{ActingMember, Door, MembershipRead, OrgError, StandingSource};
use std::future::Future;
use std::pin::Pin;

use super::org_scope::{Memberships, NOT_A_MEMBER, ORG_HEADER, ORG_MALFORMED};
use super::principal::Credentials;
use crate::ApiError;

/// The answer when `x-org-id` and the path disagree.
pub const ORG_MISMATCH: &str = "The x-org-id header names another organization than the request's path.";

/// The caller's membership of the path's organization (`{orgId}`), read once for the request.
#[derive(Debug, Clone)]
pub struct OrgMember(pub ActingMember);

/// As [`OrgMember`], for the leave route (`DELETE /api/orgs/{orgId}/members/{memberId}`) only: a member
/// held back by the organization's second-factor requirement is answered too, marked so
/// ([`ActingMember::is_held_back`]), and the use case lets such a member leave and nothing else.
#[derive(Debug, Clone)]
pub struct OrgMemberToLeave(pub ActingMember);

fn extract(
    request: &HttpRequest,
    door: Door,
) -> Pin<Box<dyn Future<Output = Result<ActingMember, ApiError>>>> {
    let credentials = Credentials::of(request);
    let memberships = request.app_data::<web::Data<Memberships>>().cloned();
    let path_org = request.match_info().get("orgId").map(str::to_owned);
    let header = request
        .headers()
        .get(ORG_HEADER)
        .map(|value| value.to_str().map(|text| text.trim().to_owned()).ok());
    // The path's organization is read with the session: one statement for both.
    let named = path_org.as_deref().and_then(|text| text.parse::<OrgId>().ok());
    Box::pin(async move {
        // Authentication first: an anonymous caller learns nothing about organizations.
        let (authenticated, read) = credentials.authenticate(named).await?;
        resolve(
            authenticated,
            memberships,
            path_org.as_deref(),
            header,
            door,
            read,
        )
        .await
    })
}

impl FromRequest for OrgMember {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let member = extract(request, Door::Act);
        Box::pin(async move { member.await.map(Self) })
    }
}

impl FromRequest for OrgMemberToLeave {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let member = extract(request, Door::Leave);
        Box::pin(async move { member.await.map(Self) })
    }
}

/// `header`: absent (`None`), unreadable (`Some(None)`) or its trimmed text. `read`: the membership read
/// with the session, used when it is of the path's organization; the member directory is asked otherwise.
async fn resolve(
    authenticated: Authenticated,
    memberships: Option<web::Data<Memberships>>,
    path_org: Option<&str>,
    header: Option<Option<String>>,
    door: Door,
    read: Option<MembershipRead>,
) -> Result<ActingMember, ApiError> {
    let path_org = path_org.and_then(|text| text.parse::<OrgId>().ok());
    let named_in_header = match header {
        None => false,
        Some(Some(text)) if text.is_empty() => false,
        Some(text) => {
            let header_org = text
                .and_then(|text| text.parse::<OrgId>().ok())
                .ok_or_else(|| ApiError::bad_request("ORG_MALFORMED", ORG_MALFORMED))?;
            if path_org != Some(header_org) {
                return Err(ApiError::Forbidden(ORG_MISMATCH.into()));
            }
            true
        }
    };
    // An id that cannot be one names no organization of the caller's.
    let org = path_org.ok_or_else(|| ApiError::NotFound(OrgError::NotFound.to_string()))?;
    let memberships =
        memberships.ok_or_else(|| ApiError::Internal("the membership directory is not configured".into()))?;
    let second_factor = authenticated.second_factor();
    let (directory, caller) = (memberships.0.as_ref(), authenticated.caller);
    // The membership read with the session when it is of the path's organization (one statement for the
    // whole request), the directory otherwise; the same second-factor rule either way.
    let read = read.filter(|read| read.org() == org);
    let source = read
        .as_ref()
        .map_or(StandingSource::Directory(directory, org), StandingSource::Read);
    let found = ActingMember::resolve(source, caller, second_factor, door).await?;
    match found {
        Some(member) => Ok(member),
        None if named_in_header => Err(ApiError::Forbidden(NOT_A_MEMBER.into())),
        None => Err(ApiError::NotFound(OrgError::NotFound.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use domain::common::{Caller, EmailAddress, RepoError, UserId};
    use domain::identity::models::Aal;
    use domain::orgs::{MemberDirectory, MemberStanding, OrgRole};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// One member in one organization (which may require a second factor); counts the reads.
    struct CountingDirectory {
        org: OrgId,
        user: UserId,
        reads: AtomicUsize,
        requires_two_factor: bool,
    }

    #[async_trait]
    impl MemberDirectory for CountingDirectory {
        async fn role_of(&self, org: OrgId, user: UserId) -> Result<Option<OrgRole>, RepoError> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            Ok((org == self.org && user == self.user).then_some(OrgRole::Admin))
        }

        async fn standing_of(&self, org: OrgId, user: UserId) -> Result<Option<MemberStanding>, RepoError> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            Ok((org == self.org && user == self.user).then_some(MemberStanding {
                role: OrgRole::Admin,
                org_requires_two_factor: self.requires_two_factor,
            }))
        }
    }

    fn at(caller: &Caller, aal: Aal) -> Authenticated {
        Authenticated {
            caller: caller.clone(),
            proof: domain::identity::SessionProof::at(aal, chrono::Utc::now()),
            session_id: None,
            protection: Some(domain::identity::Protection {
                totp: aal == Aal::Aal2,
                ..Default::default()
            }),
            withheld_role: None,
        }
    }

    fn caller() -> Caller {
        Caller {
            user_id: UserId::new(),
            email: EmailAddress::parse("dev@example.com").unwrap(),
            platform_role: None,
            origin: domain::common::ClientOrigin::default(),
        }
    }

    async fn member_of(
        directory: &Arc<CountingDirectory>,
        caller: &Caller,
        path: &str,
        header: Option<&str>,
    ) -> Result<OrgMember, ApiError> {
        member_at(directory, at(caller, Aal::Aal1), path, header, Door::Act).await
    }

    async fn member_at(
        directory: &Arc<CountingDirectory>,
        authenticated: Authenticated,
        path: &str,
        header: Option<&str>,
        door: Door,
    ) -> Result<OrgMember, ApiError> {
        let memberships = web::Data::new(Memberships(directory.clone()));
        let header = header.map(|text| Some(text.to_owned()));
        resolve(authenticated, Some(memberships), Some(path), header, door, None)
            .await
            .map(OrgMember)
    }

    #[actix_web::test]
    async fn an_organization_requiring_a_second_factor_refuses_an_aal1_session_in_the_same_one_read() {
        let (caller, org) = (caller(), OrgId::new());
        let directory = Arc::new(CountingDirectory {
            org,
            user: caller.user_id,
            reads: AtomicUsize::new(0),
            requires_two_factor: true,
        });
        let refused = member_at(
            &directory,
            at(&caller, Aal::Aal1),
            &org.to_string(),
            None,
            Door::Act,
        )
        .await
        .unwrap_err();
        assert_eq!(refused.code(), "ORG_MFA_REQUIRED");
        assert_eq!(directory.reads.load(Ordering::SeqCst), 1, "one read per request");
        let passed = member_at(
            &directory,
            at(&caller, Aal::Aal2),
            &org.to_string(),
            None,
            Door::Act,
        )
        .await
        .unwrap();
        assert!(!passed.0.is_held_back());
        let leaving = member_at(
            &directory,
            at(&caller, Aal::Aal1),
            &org.to_string(),
            None,
            Door::Leave,
        )
        .await
        .unwrap();
        assert!(leaving.0.is_held_back());
        assert_eq!(directory.reads.load(Ordering::SeqCst), 3);
    }

    #[actix_web::test]
    async fn the_paths_organization_is_resolved_with_one_membership_read() {
        let (caller, org) = (caller(), OrgId::new());
        let directory = Arc::new(CountingDirectory {
            org,
            user: caller.user_id,
            reads: AtomicUsize::new(0),
            requires_two_factor: false,
        });
        let plain = member_of(&directory, &caller, &org.to_string(), None)
            .await
            .unwrap();
        assert_eq!((plain.0.org(), plain.0.role()), (org, OrgRole::Admin));
        assert_eq!(directory.reads.load(Ordering::SeqCst), 1);
        let with_header = member_of(&directory, &caller, &org.to_string(), Some(&org.to_string()))
            .await
            .unwrap();
        assert_eq!(with_header.0.org(), org);
        assert_eq!(directory.reads.load(Ordering::SeqCst), 2, "one read per request");
    }

    #[actix_web::test]
    async fn a_stranger_gets_not_found_and_a_bad_header_is_refused_before_any_read() {
        let (caller, org) = (caller(), OrgId::new());
        let directory = Arc::new(CountingDirectory {
            org,
            user: UserId::new(),
            reads: AtomicUsize::new(0),
            requires_two_factor: false,
        });
        let stranger = member_of(&directory, &caller, &org.to_string(), None)
            .await
            .unwrap_err();
        assert!(matches!(stranger, ApiError::NotFound(_)), "{stranger:?}");
        let forged = member_of(&directory, &caller, &org.to_string(), Some(&org.to_string()))
            .await
            .unwrap_err();
        assert!(matches!(forged, ApiError::Forbidden(_)), "{forged:?}");
        assert_eq!(directory.reads.load(Ordering::SeqCst), 2);
        let other = OrgId::new().to_string();
        let mismatch = member_of(&directory, &caller, &org.to_string(), Some(&other))
            .await
            .unwrap_err();
        assert!(matches!(mismatch, ApiError::Forbidden(_)), "{mismatch:?}");
        let malformed = member_of(&directory, &caller, &org.to_string(), Some("../etc"))
            .await
            .unwrap_err();
        assert_eq!(malformed.code(), "ORG_MALFORMED");
        let not_an_id = member_of(&directory, &caller, "accept", None).await.unwrap_err();
        assert!(matches!(not_an_id, ApiError::NotFound(_)), "{not_an_id:?}");
        assert_eq!(
            directory.reads.load(Ordering::SeqCst),
            2,
            "refused before any read"
        );
    }
}
