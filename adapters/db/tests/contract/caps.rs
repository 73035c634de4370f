//! Every cap is counted inside the write that adds to it (issue 47, finding 6): fifty writes at once, half
//! through a second instance, never pass it. PostgreSQL at READ COMMITTED let two counts see the same rows.

use crate::fixtures::{self, at, audit, audit_in, email};
use adapter_db::Db;
use adapter_db::repos::{
    DieselFactorRepository, DieselInviteRepository, DieselPasskeyRepository, DieselWebhookRepository,
};
use chrono::Duration;
use domain::audit::AuditAction;
use domain::common::{InviteId, OrgId, RepoError, UserId};
use domain::identity::factors::{CONFLICT_TOO_MANY_FACTORS, MAX_FACTORS};
use domain::identity::passkeys::{CONFLICT_TOO_MANY_PASSKEYS, MAX_PASSKEYS};
use domain::identity::ports::{FactorRepository, PasskeyRepository};
use domain::mail::{EmailKind, OutgoingEmail};
use domain::orgs::invite_limits::MAX_OPEN_INVITES_PER_ORG;
use domain::orgs::ports::{CONFLICT_INVITE_RESENT, CONFLICT_OPEN_INVITES};
use domain::orgs::{Invite, InviteRepository, OrgRole};
use domain::webhooks::{MAX_ENDPOINTS_PER_ORG, WebhookRepository};
use std::future::Future;

/// Runs `write(n, db)` for n in 0..50 at once, even ones on `first`, odd ones on `second`; answers the
/// outcomes.
async fn fifty_at_once<F, Fut>(first: &Db, second: &Db, write: F) -> Vec<Result<(), RepoError>>
where
    F: Fn(usize, Db) -> Fut,
    Fut: Future<Output = Result<(), RepoError>> + Send + 'static,
{
    let tasks = (0..50).map(|n| {
        let db = if n % 2 == 0 { first.clone() } else { second.clone() };
        tokio::spawn(write(n, db))
    });
    futures::future::join_all(tasks)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect()
}

fn conflicts(outcomes: &[Result<(), RepoError>], what: &str) -> usize {
    outcomes
        .iter()
        .filter(|o| matches!(o, Err(RepoError::Conflict(c)) if c == what))
        .count()
}

fn mail(to: &str) -> OutgoingEmail {
    OutgoingEmail {
        kind: EmailKind::OrgInvite,
        to: email(to),
        subject: "Join".into(),
        text: "Join".into(),
        link: Some("https://portal.example.com/invite".into()),
    }
}

fn invite(org: OrgId, by: UserId, address: &str) -> Invite {
    Invite {
        id: InviteId::new(),
        org_id: org,
        email: email(address),
        role: OrgRole::Member,
        token_hash: format!("hash-{address}"),
        invited_by: by,
        invited_at: at(0),
        expires_at: at(0) + Duration::days(7),
        email_sent_count: 1,
        accepted_at: None,
        cancelled_at: None,
    }
}

shared_contract! {
    async fn fifty_endpoints_created_at_once_after_seventeen_leave_twenty(first, second) {
        let org = fixtures::organization(first, "Acme");
        let repo = DieselWebhookRepository::new(first.clone());
        let entry = move || audit_in(Some(org), AuditAction::OrgUpdated, at(0));
        for _ in 0..17 {
            repo.create_endpoint(&crate::webhooks::endpoint(org, &[]), &crate::webhooks::secret(0), &entry()).await.unwrap();
        }
        let outcomes = fifty_at_once(first, second, move |_, db| async move {
            DieselWebhookRepository::new(db)
                .create_endpoint(&crate::webhooks::endpoint(org, &[]), &crate::webhooks::secret(1), &entry())
                .await
        })
        .await;
        assert_eq!(repo.list_endpoints(org).await.unwrap().len(), MAX_ENDPOINTS_PER_ORG);
        assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 3, "{outcomes:?}");
    }

    async fn fifty_invitations_created_at_once_after_forty_five_leave_fifty_open(first, second) {
        let admin = fixtures::account(first, "admin@example.com");
        let org = fixtures::organization(first, "Acme");
        fixtures::member(first, org, admin, "admin", at(0));
        let repo = DieselInviteRepository::new(first.clone());
        for n in 0..45 {
            let to = format!("first-{n}@example.com");
            repo.create(&invite(org, admin, &to), &mail(&to), &audit()).await.unwrap();
        }
        let outcomes = fifty_at_once(first, second, move |n, db| async move {
            let to = format!("burst-{n}@example.com");
            DieselInviteRepository::new(db).create(&invite(org, admin, &to), &mail(&to), &audit()).await
        })
        .await;
        assert_eq!(repo.pending(org).await.unwrap().len(), MAX_OPEN_INVITES_PER_ORG, "{outcomes:?}");
        assert_eq!(conflicts(&outcomes, CONFLICT_OPEN_INVITES), 45, "{outcomes:?}");
    }

    async fn fifty_resends_at_once_of_one_count_change_it_once(first, second) {
        let admin = fixtures::account(first, "admin@example.com");
        let org = fixtures::organization(first, "Acme");
        fixtures::member(first, org, admin, "admin", at(0));
        let repo = DieselInviteRepository::new(first.clone());
        repo.create(&invite(org, admin, "eve@example.com"), &mail("eve@example.com"), &audit()).await.unwrap();
        let outcomes = fifty_at_once(first, second, move |n, db| async move {
            DieselInviteRepository::new(db)
                .resend(org, &email("eve@example.com"), 1, &format!("h-{n}"), at(60) + Duration::days(7), at(60), &mail("eve@example.com"), &audit())
                .await
                .map(drop)
        })
        .await;
        assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1, "{outcomes:?}");
        assert_eq!(conflicts(&outcomes, CONFLICT_INVITE_RESENT), 49, "{outcomes:?}");
        assert_eq!(repo.pending(org).await.unwrap()[0].email_sent_count, 2);
    }

    async fn fifty_factors_added_at_once_leave_ten(first, second) {
        let user = fixtures::account(first, "ada@example.com");
        let outcomes = fifty_at_once(first, second, move |n, db| async move {
            DieselFactorRepository::new(db).insert(&crate::factors::factor(user, &format!("Phone {n}"))).await
        })
        .await;
        let repo = DieselFactorRepository::new(first.clone());
        assert_eq!(repo.list_for_user(user).await.unwrap().len(), MAX_FACTORS, "{outcomes:?}");
        assert_eq!(conflicts(&outcomes, CONFLICT_TOO_MANY_FACTORS), 50 - MAX_FACTORS, "{outcomes:?}");
    }

    async fn fifty_passkeys_added_at_once_leave_ten(first, second) {
        let user = fixtures::account(first, "ada@example.com");
        let outcomes = fifty_at_once(first, second, move |n, db| async move {
            let notice = fixtures::notice("ada@example.com", "passkey added");
            DieselPasskeyRepository::new(db)
                .insert(&crate::passkeys::passkey(user, &format!("cred-{n}")), &notice, at(0))
                .await
        })
        .await;
        let repo = DieselPasskeyRepository::new(first.clone());
        assert_eq!(repo.list_for_user(user).await.unwrap().len(), MAX_PASSKEYS, "{outcomes:?}");
        assert_eq!(conflicts(&outcomes, CONFLICT_TOO_MANY_PASSKEYS), 50 - MAX_PASSKEYS, "{outcomes:?}");
    }
}
