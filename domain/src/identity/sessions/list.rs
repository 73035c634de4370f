//! The account's sessions as its owner sees them (PRODUCT.md §1a): each session (refresh-token family)
//! with the device and address it was last used from and when, the current one marked; signing one out
//! ends it at once (its refresh token, and the access and core tokens of it, are refused from then on).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::common::{EmailAddress, UserId};
use crate::identity::errors::IdentityError;
use crate::identity::models::{Aal, AuthMethod, SessionClient};
use crate::identity::sessions::{Session, SessionService};
use crate::mail::templates::SecurityChange;

/// One live session of the account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    /// The session (refresh-token family) id: the access token's `session_id`.
    pub id: Uuid,
    /// Whether it is the session of the request that asked.
    pub current: bool,
    pub aal: Aal,
    /// How it started.
    pub method: AuthMethod,
    pub started_at: DateTime<Utc>,
    /// The later of its last refresh and the last time a token of it was issued to a client.
    pub last_used_at: DateTime<Utc>,
    pub user_agent: Option<String>,
    pub ip_address: Option<String>,
}

impl SessionService {
    /// Records the client a session was just answered to (sign-in, refresh, a second factor): its user
    /// agent and address, and the time.
    ///
    /// # Errors
    /// A port failure.
    pub async fn note_session_client(
        &self,
        session: &Session,
        user_agent: Option<&str>,
        ip_address: Option<String>,
    ) -> Result<(), IdentityError> {
        let client = SessionClient::seen(user_agent, ip_address, self.issuer.now());
        self.session_list
            .record_client(session.session_id, session.user.account.id, &client)
            .await?;
        Ok(())
    }

    /// The live sessions of `user` (not signed out, idle or too old), most recently used first; `current`
    /// is the asking request's session.
    ///
    /// # Errors
    /// A port failure.
    pub async fn sessions_of(
        &self,
        user: UserId,
        current: Option<Uuid>,
    ) -> Result<Vec<SessionSummary>, IdentityError> {
        let now = self.issuer.now();
        let mut sessions: Vec<SessionSummary> = self
            .session_list
            .list_live(user)
            .await?
            .into_iter()
            .filter(|listed| listed.head.user_id == user && listed.head.check_usable(now).is_ok())
            .map(|listed| {
                let head = listed.head;
                let client = listed.client;
                let refreshed = head.created_at;
                SessionSummary {
                    id: head.family_id,
                    current: current == Some(head.family_id),
                    aal: head.aal(),
                    method: head.method,
                    started_at: head.family_started_at,
                    last_used_at: client
                        .as_ref()
                        .map_or(refreshed, |c| c.last_used_at.max(refreshed)),
                    user_agent: client.as_ref().and_then(|c| c.user_agent.clone()),
                    ip_address: client.and_then(|c| c.ip_address),
                }
            })
            .collect();
        sessions.sort_by(|a, b| {
            b.current
                .cmp(&a.current)
                .then(b.last_used_at.cmp(&a.last_used_at))
                .then(a.id.cmp(&b.id))
        });
        Ok(sessions)
    }

    /// Signs out the session `session` of `user` at once. Ending another session than `current` e-mails
    /// the owner (the "other sessions signed out" notice).
    ///
    /// # Errors
    /// [`IdentityError::SessionNotFound`] when `user` has no such live session; a port failure.
    pub async fn end_session(
        &self,
        user: UserId,
        email: &EmailAddress,
        session: Uuid,
        current: Option<Uuid>,
    ) -> Result<(), IdentityError> {
        let now = self.issuer.now();
        let notice = (current != Some(session)).then(|| {
            self.issuer
                .security_notice(email, SecurityChange::OtherSessionsSignedOut, now)
        });
        if self.session_list.end_session(user, session, now, notice).await? {
            Ok(())
        } else {
            Err(IdentityError::SessionNotFound)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::models::RefreshToken;
    use crate::identity::ports::ListedSession;
    use crate::identity::test_support::{Mocks, email, refresh_row};
    use crate::testing::{block_on, noon};
    use chrono::Duration;
    use mockall::predicate::eq;

    fn listed(head: RefreshToken, client: Option<SessionClient>) -> ListedSession {
        ListedSession { head, client }
    }

    #[test]
    fn the_sessions_list_marks_the_current_one_first_and_leaves_out_idle_ones() {
        let mut m = Mocks::new();
        let user = UserId::new();
        let mut current = refresh_row(noon() - Duration::hours(3));
        current.user_id = user;
        let mut other = refresh_row(noon() - Duration::hours(1));
        other.user_id = user;
        let mut idle = refresh_row(noon() - Duration::days(8));
        idle.user_id = user;
        let (current_id, other_id) = (current.family_id, other.family_id);
        let client = SessionClient::seen(
            Some("Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0"),
            Some("203.0.113.9".into()),
            noon() - Duration::minutes(5),
        );
        let rows = vec![
            listed(other, None),
            listed(current, Some(client)),
            listed(idle, None),
        ];
        m.session_list
            .expect_list_live()
            .with(eq(user))
            .returning(move |_| Ok(rows.clone()));
        let sessions = block_on(m.service().sessions.sessions_of(user, Some(current_id))).unwrap();
        assert_eq!(sessions.len(), 2);
        assert_eq!((sessions[0].id, sessions[0].current), (current_id, true));
        assert_eq!(sessions[0].ip_address.as_deref(), Some("203.0.113.9"));
        assert_eq!(sessions[0].last_used_at, noon() - Duration::minutes(5));
        assert_eq!((sessions[1].id, sessions[1].current), (other_id, false));
        assert_eq!(sessions[1].last_used_at, noon() - Duration::hours(1));
        assert_eq!(sessions[1].user_agent, None);
    }

    #[test]
    fn signing_out_another_session_tells_the_owner_and_an_unknown_one_is_not_found() {
        let mut m = Mocks::new();
        let user = UserId::new();
        let (mine, theirs) = (Uuid::new_v4(), Uuid::new_v4());
        m.session_list
            .expect_end_session()
            .withf(move |u, s, at, notice| {
                *u == user
                    && *s == theirs
                    && *at == noon()
                    && notice
                        .as_ref()
                        .is_some_and(|mail| mail.text.contains("other sessions were signed out"))
            })
            .times(1)
            .returning(|_, _, _, _| Ok(true));
        m.session_list
            .expect_end_session()
            .withf(move |_, s, _, notice| *s == mine && notice.is_none())
            .times(1)
            .returning(|_, _, _, _| Ok(false));
        let service = m.service();
        let to = email("dev@example.com");
        block_on(service.sessions.end_session(user, &to, theirs, Some(mine))).unwrap();
        let gone = block_on(service.sessions.end_session(user, &to, mine, Some(mine))).unwrap_err();
        assert!(matches!(gone, IdentityError::SessionNotFound));
    }

    #[test]
    fn a_long_user_agent_is_cut_and_an_empty_one_is_none() {
        let long = "x".repeat(2000);
        let seen = SessionClient::seen(Some(&long), None, noon());
        assert_eq!(
            seen.user_agent.map(|ua| ua.chars().count()),
            Some(crate::identity::models::MAX_USER_AGENT_CHARS)
        );
        assert_eq!(SessionClient::seen(Some("  "), None, noon()).user_agent, None);
    }
}
