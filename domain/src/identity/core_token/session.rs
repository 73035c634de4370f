//! The session a token belongs to: live (with what it proves and the membership read with it), over, or
//! not ours to see (a hosted identity service), and what a hosted token claims its session proves.

use chrono::{DateTime, TimeZone, Utc};
use uuid::Uuid;

use super::CoreTokenService;
use crate::common::{OrgId, PlatformRole, UserId};
use crate::identity::assurance::{Protection, SessionProof};
use crate::identity::core_token::AuthError;
use crate::identity::models::Aal;
use crate::identity::sessions::tokens::{AccessTokenClaims, CoreTokenClaims};
use crate::membership::MembershipRead;

impl CoreTokenService {
    /// The access token's session, or `None` when it is over (signed out, revoked or expired).
    pub(super) async fn session_of(
        &self,
        claims: &AccessTokenClaims,
        now: DateTime<Utc>,
        org: Option<OrgId>,
    ) -> Result<Option<Session>, AuthError> {
        self.family_state(claims.session_id, claims.sub, now, org).await
    }

    /// The session (refresh-token family) `family` of `user`, with the platform role of its account read
    /// in the same query (and, for a request naming `org`, the account's role in it and its apps'
    /// revision), or `None` when it is over: signed out, revoked or expired. Always
    /// [`Session::NotKnownHere`] when sessions are not known here.
    async fn family_state(
        &self,
        family: Uuid,
        user: UserId,
        now: DateTime<Utc>,
        org: Option<OrgId>,
    ) -> Result<Option<Session>, AuthError> {
        let Some(sessions) = &self.sessions else {
            return Ok(Some(Session::NotKnownHere));
        };
        let found = match org {
            None => sessions
                .current_of_family_with_role(family)
                .await?
                .map(|live| (live, None)),
            Some(org) => sessions
                .current_of_family_in_org(family, org)
                .await?
                .map(|found| {
                    let read = MembershipRead::new(
                        found.live.head.user_id,
                        org,
                        found.org_role,
                        found.org_requires_two_factor,
                        found.apps_revision,
                    );
                    (found.live, Some(read))
                }),
        };
        Ok(found
            .filter(|(live, _)| live.head.user_id == user && live.head.check_usable(now).is_ok())
            .map(|(live, membership)| Session::Live {
                role: live.role,
                proof: SessionProof::of(&live.head),
                protection: live.protection,
                membership,
            }))
    }

    /// A core token is accepted while the session it was exchanged from lives. With the built-in identity
    /// service every core token names its session; one that names none was not made here for this server.
    pub(super) async fn core_session(
        &self,
        claims: &CoreTokenClaims,
        now: DateTime<Utc>,
        org: Option<OrgId>,
    ) -> Result<Option<Session>, AuthError> {
        match (claims.sid, &self.sessions) {
            (_, None) => Ok(Some(Session::NotKnownHere)),
            (None, Some(_)) => Ok(None),
            (Some(family), Some(_)) => self.family_state(family, claims.sub, now, org).await,
        }
    }
}

/// What a hosted token claims its session proves (its service holds its sessions): its `aal`, and the
/// first-factor time it names (`auth_time` of a core token, the `amr` timestamps of an access token;
/// seconds since the epoch). Without one the sign-in counts as long ago: never recent.
pub(super) fn claimed_proof(aal: &str, first_factor_at: Option<i64>) -> SessionProof {
    SessionProof {
        aal: Aal::parse(aal).unwrap_or(Aal::Aal1),
        first_factor_at: first_factor_at
            .and_then(|seconds| Utc.timestamp_opt(seconds, 0).single())
            .unwrap_or(DateTime::<Utc>::UNIX_EPOCH),
        family: None,
        raised_by: None,
    }
}

/// What authenticating learnt of the caller's session.
pub(super) enum Session {
    /// Live, with the platform role of its account as read with it, what it proves, what protects the
    /// account, and the membership read with it when the request names an organization.
    Live {
        role: Option<PlatformRole>,
        proof: SessionProof,
        protection: Protection,
        membership: Option<MembershipRead>,
    },
    /// Not ours to see (a hosted identity service): the platform role is still to be read.
    NotKnownHere,
}

impl Session {
    /// The level of the session: the live head's, or what the token claims when sessions are not ours.
    pub(super) fn aal(&self, claims: &AccessTokenClaims) -> Aal {
        match self {
            Self::Live { proof, .. } => proof.aal,
            Self::NotKnownHere => Aal::parse(&claims.aal).unwrap_or(Aal::Aal1),
        }
    }

    /// When the session last gave a first factor: the live head's start, or what the token's `amr` says
    /// when sessions are not ours.
    pub(super) fn first_factor_at(&self, claims: &AccessTokenClaims) -> Option<DateTime<Utc>> {
        match self {
            Self::Live { proof, .. } => Some(proof.first_factor_at),
            Self::NotKnownHere => claims.first_factor_at(),
        }
    }
}
