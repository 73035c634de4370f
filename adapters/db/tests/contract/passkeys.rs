//! Passkeys: storage (a credential id once across accounts), the single use of a ceremony, the sign
//! count's compare-and-set, removal (which lowers the sessions that passed the passkey, with the owner's
//! notice in the same transaction), and the session read that counts a passkey as a second factor.

use crate::fixtures;
use adapter_db::repos::{DieselPasskeyRepository, DieselRefreshTokenRepository};
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::common::{OrgId, UserId};
use domain::identity::models::{AuthMethod, RefreshToken, SecondFactorMethod, SecondStep};
use domain::identity::passkeys::{CHALLENGE_TTL_SECS, CeremonyKind, Passkey, WebAuthnChallenge};
use domain::identity::ports::{PasskeyRepository, RefreshTokenRepository};
use uuid::Uuid;

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

pub(crate) fn passkey(user: UserId, credential: &str) -> Passkey {
    Passkey {
        id: Uuid::new_v4(),
        user_id: user,
        credential_id: credential.to_owned(),
        public_key: "{\"cred\":{}}".into(),
        sign_count: 0,
        friendly_name: Some("Passkey".into()),
        created_at: noon(),
        last_used_at: None,
    }
}

fn challenge(user: Option<UserId>, kind: CeremonyKind, at: DateTime<Utc>) -> WebAuthnChallenge {
    WebAuthnChallenge {
        id: Uuid::new_v4(),
        user_id: user,
        kind,
        state: "{\"state\":1}".into(),
        created_at: at,
    }
}

contract! {
    async fn a_ceremony_is_taken_once_by_its_kind_and_account_and_expired_ones_are_pruned(db) {
        let repo = DieselPasskeyRepository::new(db.clone());
        let user = fixtures::account(db, "p@example.com");
        let registration = challenge(Some(user), CeremonyKind::Registration, noon());
        let sign_in = challenge(None, CeremonyKind::Authentication, noon());
        repo.insert_challenge(&registration).await.unwrap();
        repo.insert_challenge(&sign_in).await.unwrap();

        let take = |id, kind, user| repo.take_challenge(id, kind, user);
        assert_eq!(take(registration.id, CeremonyKind::Authentication, Some(user)).await.unwrap(), None);
        assert_eq!(take(registration.id, CeremonyKind::Registration, Some(UserId::new())).await.unwrap(), None);
        assert_eq!(take(registration.id, CeremonyKind::Registration, None).await.unwrap(), None);
        assert_eq!(
            take(registration.id, CeremonyKind::Registration, Some(user)).await.unwrap(),
            Some(registration.clone())
        );
        assert_eq!(take(registration.id, CeremonyKind::Registration, Some(user)).await.unwrap(), None, "once");
        assert_eq!(take(sign_in.id, CeremonyKind::Authentication, Some(user)).await.unwrap(), None);

        let old = challenge(None, CeremonyKind::Authentication, noon() - Duration::seconds(CHALLENGE_TTL_SECS + 1));
        repo.insert_challenge(&old).await.unwrap();
        assert_eq!(repo.prune_challenges(noon()).await.unwrap(), 1);
        assert_eq!(take(old.id, CeremonyKind::Authentication, None).await.unwrap(), None);
        assert_eq!(take(sign_in.id, CeremonyKind::Authentication, None).await.unwrap(), Some(sign_in));
    }

    async fn a_credential_is_registered_once_and_its_sign_count_moves_by_compare_and_set(db) {
        let repo = DieselPasskeyRepository::new(db.clone());
        let user = fixtures::account(db, "p@example.com");
        let other = fixtures::account(db, "q@example.com");
        let laptop = passkey(user, "cred-a");
        let added = fixtures::notice("p@example.com", "passkey added");
        repo.insert(&laptop, &added, noon()).await.unwrap();
        assert_eq!(fixtures::notices(db).await, ["Security: passkey added"]);
        assert!(matches!(
            repo.insert(&passkey(other, "cred-a"), &added, noon()).await,
            Err(domain::common::RepoError::Duplicate(_))
        ));
        assert_eq!(fixtures::notices(db).await.len(), 1, "a refused passkey writes no e-mail");

        assert_eq!(repo.find_by_credential("cred-a").await.unwrap(), Some(laptop.clone()));
        assert_eq!(repo.find_by_credential("cred-b").await.unwrap(), None);
        assert_eq!(repo.list_for_user(user).await.unwrap(), vec![laptop.clone()]);
        assert!(repo.list_for_user(other).await.unwrap().is_empty());

        let later = noon() + Duration::minutes(5);
        assert!(repo.record_use(laptop.id, 0, 4, later).await.unwrap());
        assert!(!repo.record_use(laptop.id, 0, 5, later).await.unwrap(), "a racing sign-in read count 0 too");
        let used = repo.find_by_credential("cred-a").await.unwrap().unwrap();
        assert_eq!((used.sign_count, used.last_used_at), (4, Some(later)));

        assert_eq!(repo.rename(other, laptop.id, "Mine").await.unwrap(), None, "another account's");
        let renamed = repo.rename(user, laptop.id, "Laptop").await.unwrap().unwrap();
        assert_eq!(renamed.friendly_name.as_deref(), Some("Laptop"));
    }

    async fn removing_a_passkey_lowers_its_sessions_and_the_session_read_counts_passkeys(db) {
        let repo = DieselPasskeyRepository::new(db.clone());
        let sessions = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "p@example.com");
        let head = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        sessions.insert(&head).await.unwrap();
        let live = sessions.current_of_family_with_role(head.family_id).await.unwrap().unwrap();
        assert!(!live.protection.is_protected());

        let laptop = passkey(user, "cred-a");
        repo.insert(&laptop, &fixtures::notice("p@example.com", "passkey added"), noon()).await.unwrap();
        let live = sessions.current_of_family_with_role(head.family_id).await.unwrap().unwrap();
        assert!(live.protection.passkey && live.protection.is_protected(), "a passkey is a second factor");
        let in_org = sessions.current_of_family_in_org(head.family_id, OrgId::new()).await.unwrap().unwrap();
        assert!(in_org.live.protection.is_protected(), "the read with an organization counts a passkey too");

        let mut signed_in = RefreshToken::start("p1".into(), user, AuthMethod::Passkey, noon());
        let step = SecondStep { method: SecondFactorMethod::Passkey, factor_id: Some(laptop.id), at: noon() };
        signed_in.second_step = Some(step);
        sessions.insert(&signed_in).await.unwrap();
        let read = sessions.current_of_family(signed_in.family_id).await.unwrap().unwrap();
        assert_eq!((read.method, read.second_step), (AuthMethod::Passkey, Some(step)));

        let removed = fixtures::notice("p@example.com", "passkey removed");
        assert!(!repo.delete(UserId::new(), laptop.id, &removed, noon()).await.unwrap(), "only the owner");
        assert!(repo.delete(user, laptop.id, &removed, noon()).await.unwrap());
        assert!(!repo.delete(user, laptop.id, &removed, noon()).await.unwrap());
        assert_eq!(fixtures::notices(db).await, ["Security: passkey added", "Security: passkey removed"]);
        let lowered = sessions.current_of_family_with_role(signed_in.family_id).await.unwrap().unwrap();
        assert_eq!(lowered.head.second_step, None, "the passkey's session dropped to aal1");
        assert!(!lowered.protection.is_protected());
    }
}
