//! Refresh tokens: storage, compare-and-set rotation, revocation and pruning.

use crate::fixtures;
use adapter_db::repos::{
    DieselAppRepository, DieselMemberDirectory, DieselOrgRepository, DieselPlatformAdminRepository,
    DieselRefreshTokenRepository,
};
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::apps::ports::AppRepository;
use domain::common::{OrgId, PlatformRole, RepoError};
use domain::identity::models::{AuthMethod, GrantBinding, LiveSession, LiveSessionInOrg, RefreshToken};
use domain::identity::ports::{PlatformAdminRepository, RefreshTokenRepository};
use domain::orgs::{MemberDirectory, OrgRepository, OrgRole};
use uuid::Uuid;

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap() + Duration::milliseconds(7)
}

async fn stored(repo: &DieselRefreshTokenRepository, hash: &str) -> RefreshToken {
    repo.find_by_hash(hash).await.unwrap().expect("stored token")
}

contract! {
    async fn the_current_token_of_a_session_is_its_unreplaced_unrevoked_one(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let first = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        repo.insert(&first).await.unwrap();
        assert_eq!(repo.current_of_family(first.family_id).await.unwrap(), Some(first.clone()));
        let later = noon() + Duration::minutes(5);
        let second = first.successor("h2".into(), later);
        repo.rotate("h1", &second, later).await.unwrap();
        assert_eq!(
            repo.current_of_family(first.family_id).await.unwrap().map(|t| t.token_hash),
            Some("h2".to_owned())
        );
        assert_eq!(repo.current_of_family(Uuid::new_v4()).await.unwrap(), None);
        repo.revoke_family(first.family_id, later).await.unwrap();
        assert_eq!(repo.current_of_family(first.family_id).await.unwrap(), None);
    }

    async fn the_current_token_of_a_session_reads_with_the_platform_role_of_its_account(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let other = fixtures::account(db, "other@example.com");
        let first = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        repo.insert(&first).await.unwrap();
        assert_eq!(repo.current_of_family_with_role(first.family_id).await.unwrap(), Some(LiveSession { head: first.clone(), role: None, protection: domain::identity::Protection::default() }));

        // The role of another account, and a role waiting for an address, are not this account's.
        let admins = DieselPlatformAdminRepository::new(db.clone());
        admins.grant(&fixtures::email("other@example.com"), PlatformRole::Admin, None, GrantBinding::AnyAccount, noon(), &fixtures::audit()).await.unwrap();
        admins.grant(&fixtures::email("nobody@example.com"), PlatformRole::Admin, None, GrantBinding::AnyAccount, noon(), &fixtures::audit()).await.unwrap();
        assert_eq!(admins.role_of(other).await.unwrap(), Some(PlatformRole::Admin));
        assert_eq!(repo.current_of_family_with_role(first.family_id).await.unwrap(), Some(LiveSession { head: first.clone(), role: None, protection: domain::identity::Protection::default() }));

        admins.grant(&fixtures::email("s@example.com"), PlatformRole::Reviewer, None, GrantBinding::AnyAccount, noon(), &fixtures::audit()).await.unwrap();
        let later = noon() + Duration::minutes(5);
        let second = first.successor("h2".into(), later);
        repo.rotate("h1", &second, later).await.unwrap();
        assert_eq!(
            repo.current_of_family_with_role(first.family_id).await.unwrap(),
            Some(LiveSession { head: second, role: Some(PlatformRole::Reviewer), protection: domain::identity::Protection::default() })
        );
        assert_eq!(repo.current_of_family_with_role(Uuid::new_v4()).await.unwrap(), None);
        repo.revoke_family(first.family_id, later).await.unwrap();
        assert_eq!(repo.current_of_family_with_role(first.family_id).await.unwrap(), None);
    }

    async fn the_current_token_of_a_session_reads_with_its_accounts_role_in_an_organization_and_its_apps_revision(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let members = DieselMemberDirectory::new(db.clone());
        let apps = DieselAppRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let other = fixtures::account(db, "other@example.com");
        let (acme, globex, empty) = (
            fixtures::organization(db, "Acme"),
            fixtures::organization(db, "Globex"),
            fixtures::organization(db, "Empty"),
        );
        fixtures::member(db, acme, user, "member", fixtures::at(0));
        fixtures::member(db, globex, other, "admin", fixtures::at(0));
        fixtures::member(db, empty, user, "admin", fixtures::at(0));
        fixtures::app(db, acme, user, "com.acme.one");
        fixtures::app(db, acme, user, "com.acme.two");
        let first = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        repo.insert(&first).await.unwrap();
        let live = LiveSession { head: first.clone(), role: None, protection: domain::identity::Protection::default() };

        // What the directory and the revision's own read answer, in one statement.
        let in_acme = repo.current_of_family_in_org(first.family_id, acme).await.unwrap().unwrap();
        assert_eq!(members.role_of(acme, user).await.unwrap(), Some(OrgRole::Member));
        assert_eq!(apps.revision(acme).await.unwrap(), in_acme.apps_revision);
        assert!(in_acme.apps_revision > 0, "two apps were added");
        assert_eq!(
            in_acme,
            LiveSessionInOrg {
                live: live.clone(),
                org_role: Some(OrgRole::Member),
                org_requires_two_factor: false,
                apps_revision: in_acme.apps_revision,
            }
        );
        let in_empty = repo.current_of_family_in_org(first.family_id, empty).await.unwrap().unwrap();
        assert_eq!((in_empty.org_role, in_empty.apps_revision), (Some(OrgRole::Admin), apps.revision(empty).await.unwrap()));
        // Another's organization, and one that does not exist: the session, no role; revision as its own read.
        let in_globex = repo.current_of_family_in_org(first.family_id, globex).await.unwrap().unwrap();
        assert_eq!((in_globex.live, in_globex.org_role), (live.clone(), None));
        assert_eq!(in_globex.apps_revision, apps.revision(globex).await.unwrap());
        let nowhere = OrgId::new();
        let in_nowhere = repo.current_of_family_in_org(first.family_id, nowhere).await.unwrap().unwrap();
        assert_eq!((in_nowhere.org_role, in_nowhere.org_requires_two_factor), (None, false));
        assert_eq!(in_nowhere.apps_revision, apps.revision(nowhere).await.unwrap());

        // The organization's second-factor requirement is read in the same statement, as the directory reads it.
        let orgs = DieselOrgRepository::new(db.clone());
        orgs.set_two_factor_requirement(acme, true, noon(), &fixtures::audit()).await.unwrap();
        let required = repo.current_of_family_in_org(first.family_id, acme).await.unwrap().unwrap();
        assert!(required.org_requires_two_factor);
        assert!(members.standing_of(acme, user).await.unwrap().unwrap().org_requires_two_factor);
        assert!(!repo.current_of_family_in_org(first.family_id, empty).await.unwrap().unwrap().org_requires_two_factor);
        orgs.set_two_factor_requirement(acme, false, noon(), &fixtures::audit()).await.unwrap();
        assert!(!repo.current_of_family_in_org(first.family_id, acme).await.unwrap().unwrap().org_requires_two_factor);

        // A change of apps moves the revision read with the session; the platform role and factor come too.
        let before = in_acme.apps_revision;
        fixtures::app(db, acme, user, "com.acme.three");
        DieselPlatformAdminRepository::new(db.clone())
            .grant(&fixtures::email("s@example.com"), PlatformRole::Reviewer, None, GrantBinding::AnyAccount, noon(), &fixtures::audit())
            .await
            .unwrap();
        let moved = repo.current_of_family_in_org(first.family_id, acme).await.unwrap().unwrap();
        assert!(moved.apps_revision > before);
        assert_eq!(moved.live.role, Some(PlatformRole::Reviewer));

        // A member removed, and a session signed out, are seen by the very next read.
        DieselOrgRepository::new(db.clone()).remove_member(acme, user, &fixtures::audit()).await.unwrap();
        assert_eq!(repo.current_of_family_in_org(first.family_id, acme).await.unwrap().unwrap().org_role, None);
        repo.revoke_family(first.family_id, noon()).await.unwrap();
        assert_eq!(repo.current_of_family_in_org(first.family_id, empty).await.unwrap(), None);
        assert_eq!(repo.current_of_family_in_org(Uuid::new_v4(), empty).await.unwrap(), None);
    }

    async fn an_inserted_token_reads_back_and_its_digest_is_unique(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let token = RefreshToken::start("h1".into(), user, AuthMethod::EmailSignup, noon());
        repo.insert(&token).await.unwrap();
        assert_eq!(repo.find_by_hash("h1").await.unwrap(), Some(token));
        assert_eq!(repo.find_by_hash("nope").await.unwrap(), None);
        let again = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        let result = repo.insert(&again).await;
        assert!(matches!(result, Err(RepoError::Duplicate("token_hash"))), "{result:?}");
    }

    async fn a_rotation_marks_the_old_token_used_and_stores_the_successor(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let first = RefreshToken::start("h1".into(), user, AuthMethod::OAuth, noon());
        repo.insert(&first).await.unwrap();
        let later = noon() + Duration::hours(1);
        let successor = first.successor("h2".into(), later);
        repo.rotate("h1", &successor, later).await.unwrap();
        let old = stored(&repo, "h1").await;
        assert_eq!((old.replaced_by.as_deref(), old.last_used_at), (Some("h2"), later));
        assert_eq!(old.revoked_at, None);
        let new = stored(&repo, "h2").await;
        assert_eq!(new, successor);
        assert_eq!((new.family_id, new.method, new.family_started_at), (first.family_id, AuthMethod::OAuth, noon()));
    }

    async fn rotating_a_used_revoked_or_unknown_token_fails_and_stores_nothing(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let first = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        repo.insert(&first).await.unwrap();
        repo.rotate("h1", &first.successor("h2".into(), noon()), noon()).await.unwrap();
        let reuse = repo.rotate("h1", &first.successor("h3".into(), noon()), noon()).await;
        assert!(matches!(reuse, Err(RepoError::Conflict(_))), "{reuse:?}");
        assert_eq!(repo.find_by_hash("h3").await.unwrap(), None, "no successor of a reused token");
        assert_eq!(stored(&repo, "h1").await.replaced_by.as_deref(), Some("h2"));

        let other = RefreshToken::start("r1".into(), user, AuthMethod::Password, noon());
        repo.insert(&other).await.unwrap();
        repo.revoke_family(other.family_id, noon()).await.unwrap();
        let revoked = repo.rotate("r1", &other.successor("r2".into(), noon()), noon()).await;
        assert!(matches!(revoked, Err(RepoError::Conflict(_))), "{revoked:?}");
        assert_eq!(repo.find_by_hash("r2").await.unwrap(), None);

        let unknown = repo.rotate("missing", &first.successor("m2".into(), noon()), noon()).await;
        assert!(matches!(unknown, Err(RepoError::NotFound)), "{unknown:?}");
        assert_eq!(repo.find_by_hash("m2").await.unwrap(), None);
    }

    async fn of_concurrent_rotations_of_one_token_exactly_one_wins(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "race@example.com");
        let first = RefreshToken::start("h0".into(), user, AuthMethod::Password, noon());
        repo.insert(&first).await.unwrap();
        let mut tasks = Vec::new();
        for i in 0..8 {
            let repo = repo.clone();
            let successor = first.successor(format!("next-{i}"), noon());
            tasks.push(tokio::spawn(async move { repo.rotate("h0", &successor, noon()).await }));
        }
        let mut wins = 0;
        for task in tasks {
            match task.await.unwrap() {
                Ok(()) => wins += 1,
                Err(RepoError::Conflict(_)) => {}
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(wins, 1);
        let winner = stored(&repo, "h0").await.replaced_by.unwrap();
        let mut successors = 0;
        for i in 0..8 {
            if repo.find_by_hash(&format!("next-{i}")).await.unwrap().is_some() {
                successors += 1;
                assert_eq!(winner, format!("next-{i}"));
            }
        }
        assert_eq!(successors, 1, "only the winner's successor is stored");
    }

    async fn revoking_a_family_revokes_only_its_tokens_once(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let first = RefreshToken::start("a1".into(), user, AuthMethod::Password, noon());
        let other = RefreshToken::start("b1".into(), user, AuthMethod::Password, noon());
        repo.insert(&first).await.unwrap();
        repo.insert(&other).await.unwrap();
        repo.rotate("a1", &first.successor("a2".into(), noon()), noon()).await.unwrap();
        let at = noon() + Duration::minutes(1);
        repo.revoke_family(first.family_id, at).await.unwrap();
        repo.revoke_family(first.family_id, at + Duration::minutes(5)).await.unwrap();
        assert_eq!(stored(&repo, "a1").await.revoked_at, Some(at));
        assert_eq!(stored(&repo, "a2").await.revoked_at, Some(at), "idempotent: the first time stays");
        assert_eq!(stored(&repo, "b1").await.revoked_at, None);
        repo.revoke_family(Uuid::new_v4(), at).await.unwrap();
    }

    async fn revoking_all_of_a_users_sessions_can_keep_one(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let someone = fixtures::account(db, "else@example.com");
        let keep = RefreshToken::start("keep".into(), user, AuthMethod::Password, noon());
        let drop1 = RefreshToken::start("drop1".into(), user, AuthMethod::Otp, noon());
        let drop2 = RefreshToken::start("drop2".into(), user, AuthMethod::MagicLink, noon());
        let foreign = RefreshToken::start("foreign".into(), someone, AuthMethod::Password, noon());
        for token in [&keep, &drop1, &drop2, &foreign] {
            repo.insert(token).await.unwrap();
        }
        let ended = crate::fixtures::notice("s@example.com", "others signed out");
        repo.revoke_all_for_user(user, Some(keep.family_id), noon(), Some(ended)).await.unwrap();
        assert_eq!(crate::fixtures::notices(db).await, ["Security: others signed out"]);
        // Nothing left to end: no e-mail.
        let again = crate::fixtures::notice("s@example.com", "nothing to end");
        repo.revoke_all_for_user(user, Some(keep.family_id), noon(), Some(again)).await.unwrap();
        assert_eq!(crate::fixtures::notices(db).await.len(), 1);
        assert_eq!(stored(&repo, "keep").await.revoked_at, None);
        assert_eq!(stored(&repo, "drop1").await.revoked_at, Some(noon()));
        assert_eq!(stored(&repo, "drop2").await.revoked_at, Some(noon()));
        assert_eq!(stored(&repo, "foreign").await.revoked_at, None);
        let later = noon() + Duration::hours(1);
        repo.revoke_all_for_user(user, None, later, None).await.unwrap();
        assert_eq!(stored(&repo, "keep").await.revoked_at, Some(later));
        assert_eq!(stored(&repo, "drop1").await.revoked_at, Some(noon()), "idempotent");
        assert_eq!(stored(&repo, "foreign").await.revoked_at, None);
    }

    async fn pruning_deletes_old_families_and_long_revoked_tokens(db) {
        let repo = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let cutoff = noon();
        let ancient = RefreshToken::start("ancient".into(), user, AuthMethod::Password, cutoff - Duration::days(31));
        let ancient_next = ancient.successor("ancient-next".into(), cutoff - Duration::days(1));
        let revoked_long_ago = RefreshToken::start("revoked".into(), user, AuthMethod::Password, cutoff + Duration::hours(1));
        let revoked_recently = RefreshToken::start("recent".into(), user, AuthMethod::Password, cutoff + Duration::hours(1));
        let live = RefreshToken::start("live".into(), user, AuthMethod::Password, cutoff);
        for token in [&ancient, &ancient_next, &revoked_long_ago, &revoked_recently, &live] {
            repo.insert(token).await.unwrap();
        }
        repo.revoke_family(revoked_long_ago.family_id, cutoff - Duration::seconds(1)).await.unwrap();
        repo.revoke_family(revoked_recently.family_id, cutoff).await.unwrap();
        assert_eq!(repo.prune_before(cutoff).await.unwrap(), 3);
        for gone in ["ancient", "ancient-next", "revoked"] {
            assert_eq!(repo.find_by_hash(gone).await.unwrap(), None, "{gone}");
        }
        for kept in ["recent", "live"] {
            assert!(repo.find_by_hash(kept).await.unwrap().is_some(), "{kept}");
        }
        assert_eq!(repo.prune_before(cutoff).await.unwrap(), 0);
    }
}
