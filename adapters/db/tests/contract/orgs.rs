//! `OrgRepository` and `MemberDirectory`: organizations, members, roles, the only-admin guards.

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::audit;
use crate::fixtures::{self, at, email};
use adapter_db::Db;
use adapter_db::repos::{DieselMemberDirectory, DieselOrgRepository};
use adapter_db::schema::{org_invites, org_members, organizations};
use diesel::prelude::*;
use domain::common::{EmailAddress, OrgId, RepoError, UserId};
use domain::orgs::{Member, MemberDirectory, OrgProfile, OrgRepository, OrgRole, Organization};

fn org_named(name: &str, minutes: i64) -> Organization {
    Organization::new(name.to_owned(), at(minutes))
}

fn member_of(user: UserId, address: &str, role: OrgRole, minutes: i64) -> Member {
    Member {
        user_id: user,
        email: email(address),
        role,
        joined_at: at(minutes),
        has_two_factor: false,
    }
}

/// An organization with an admin (`ada@example.com`), created through the repository.
async fn org_with_admin(db: &Db, name: &str) -> (DieselOrgRepository, Organization, UserId) {
    let repo = DieselOrgRepository::new(db.clone());
    let admin = fixtures::account(db, &format!("admin-{}@example.com", uuid_suffix()));
    let org = org_named(name, 0);
    let address = account_email(db, admin);
    repo.create(
        &org,
        &member_of(admin, &address, OrgRole::Admin, 0),
        &fixtures::audit(),
    )
    .await
    .unwrap();
    (repo, org, admin)
}

fn uuid_suffix() -> String {
    UserId::new().to_string()[..8].to_owned()
}

fn account_email(db: &Db, user: UserId) -> String {
    use adapter_db::schema::accounts;
    let mut conn = db.connection().unwrap();
    accounts::table
        .find(user.to_string())
        .select(accounts::email)
        .first(&mut *conn)
        .unwrap()
}

fn count_rows(db: &Db, org: OrgId) -> (i64, i64, i64) {
    let mut conn = db.connection().unwrap();
    let id = org.to_string();
    let orgs = organizations::table
        .filter(organizations::id.eq(&id))
        .count()
        .get_result(&mut *conn)
        .unwrap();
    let members = org_members::table
        .filter(org_members::org_id.eq(&id))
        .count()
        .get_result(&mut *conn)
        .unwrap();
    let invites = org_invites::table
        .filter(org_invites::org_id.eq(&id))
        .count()
        .get_result(&mut *conn)
        .unwrap();
    (orgs, members, invites)
}

fn insert_invite(db: &Db, org: OrgId, by: UserId, address: &str) {
    let mut conn = db.connection().unwrap();
    diesel::insert_into(org_invites::table)
        .values((
            org_invites::id.eq(UserId::new().to_string()),
            org_invites::org_id.eq(org.to_string()),
            org_invites::email.eq(address),
            org_invites::role.eq("member"),
            org_invites::token_hash.eq(format!("hash-{org}-{address}")),
            org_invites::invited_by.eq(by.to_string()),
            org_invites::invited_at.eq(0_i64),
            org_invites::expires_at.eq(1_i64),
            org_invites::email_sent_count.eq(1),
        ))
        .execute(&mut *conn)
        .unwrap();
}

contract! {
    async fn a_created_org_is_read_back_with_its_first_admin(db) {
        let repo = DieselOrgRepository::new(db.clone());
        let ada = fixtures::account(db, "ada@example.com");
        let mut org = org_named("Acme", 0);
        org.profile.website = Some("https://acme.example.com".into());
        repo.create(&org, &member_of(ada, "ada@example.com", OrgRole::Admin, 1), &fixtures::audit()).await.unwrap();

        assert_eq!(repo.get(org.id).await.unwrap(), Some(org.clone()));
        let members = repo.members(org.id).await.unwrap();
        assert_eq!(members, vec![member_of(ada, "ada@example.com", OrgRole::Admin, 1)]);
        let directory = DieselMemberDirectory::new(db.clone());
        assert_eq!(directory.role_of(org.id, ada).await.unwrap(), Some(OrgRole::Admin));
    }

    async fn the_first_member_is_always_stored_as_admin(db) {
        let repo = DieselOrgRepository::new(db.clone());
        let ada = fixtures::account(db, "ada@example.com");
        let org = org_named("Acme", 0);
        repo.create(&org, &member_of(ada, "ada@example.com", OrgRole::Member, 0), &fixtures::audit()).await.unwrap();
        assert_eq!(repo.members(org.id).await.unwrap()[0].role, OrgRole::Admin);
    }

    async fn creating_an_org_with_an_existing_id_is_a_duplicate_and_writes_nothing(db) {
        let (repo, org, _) = org_with_admin(db, "Acme").await;
        let bob = fixtures::account(db, "bob@example.com");
        let mut again = org.clone();
        again.name = "Other".into();
        let result = repo.create(&again, &member_of(bob, "bob@example.com", OrgRole::Admin, 0), &fixtures::audit()).await;
        assert!(matches!(result, Err(RepoError::Duplicate("organization"))), "{result:?}");
        assert_eq!(repo.get(org.id).await.unwrap().unwrap().name, "Acme");
        assert!(repo.list_for_user(bob).await.unwrap().is_empty());
    }

    async fn an_org_for_an_unknown_account_is_not_found_and_rolled_back(db) {
        let repo = DieselOrgRepository::new(db.clone());
        let org = org_named("Ghost", 0);
        let result = repo.create(&org, &member_of(UserId::new(), "ghost@example.com", OrgRole::Admin, 0), &fixtures::audit()).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
        assert_eq!(repo.get(org.id).await.unwrap(), None, "the organization insert was rolled back");
    }

    async fn a_personal_org_is_created_for_a_user_without_one(db) {
        let repo = DieselOrgRepository::new(db.clone());
        let ada = fixtures::account(db, "ada@example.com");
        let org = org_named("ada's Organization", 0);
        repo.create_personal(&org, &member_of(ada, "ada@example.com", OrgRole::Admin, 0), &audit()).await.unwrap();
        let mine = repo.list_for_user(ada).await.unwrap();
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0].organization, org);
        assert_eq!(mine[0].role, OrgRole::Admin);
    }

    async fn a_personal_org_is_refused_when_the_user_already_belongs_to_one(db) {
        let (repo, existing, _) = org_with_admin(db, "Acme").await;
        let bob = fixtures::account(db, "bob@example.com");
        fixtures::member(db, existing.id, bob, "member", at(1));
        let org = org_named("bob's Organization", 2);
        let result = repo.create_personal(&org, &member_of(bob, "bob@example.com", OrgRole::Admin, 2), &audit()).await;
        assert!(matches!(&result, Err(RepoError::Conflict(c)) if c == "has_organization"), "{result:?}");
        assert_eq!(repo.get(org.id).await.unwrap(), None, "nothing was written");
        assert_eq!(repo.list_for_user(bob).await.unwrap().len(), 1);
    }

    async fn concurrent_first_sign_ins_create_one_personal_org(db) {
        let ada = fixtures::account(db, "ada@example.com");
        let mut tasks = Vec::new();
        for i in 0..8 {
            let repo = DieselOrgRepository::new(db.clone());
            tasks.push(tokio::spawn(async move {
                let org = org_named("ada's Organization", i);
                repo.create_personal(&org, &member_of(ada, "ada@example.com", OrgRole::Admin, i), &audit()).await
            }));
        }
        let mut created = 0;
        for task in tasks {
            match task.await.unwrap() {
                Ok(()) => created += 1,
                Err(RepoError::Conflict(c)) => assert_eq!(c, "has_organization"),
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(created, 1);
        let repo = DieselOrgRepository::new(db.clone());
        assert_eq!(repo.list_for_user(ada).await.unwrap().len(), 1);
        let mut conn = db.connection().unwrap();
        let orgs: i64 = organizations::table.count().get_result(&mut *conn).unwrap();
        assert_eq!(orgs, 1);
    }

    async fn an_unknown_org_is_none_and_has_no_members(db) {
        let repo = DieselOrgRepository::new(db.clone());
        assert_eq!(repo.get(OrgId::new()).await.unwrap(), None);
        assert!(repo.members(OrgId::new()).await.unwrap().is_empty());
        let directory = DieselMemberDirectory::new(db.clone());
        assert_eq!(directory.role_of(OrgId::new(), UserId::new()).await.unwrap(), None);
    }

    async fn a_user_lists_only_their_orgs_with_roles_oldest_membership_first(db) {
        let repo = DieselOrgRepository::new(db.clone());
        let ada = fixtures::account(db, "ada@example.com");
        let bob = fixtures::account(db, "bob@example.com");
        let late = org_named("Late", 0);
        let early = org_named("Early", 0);
        let foreign = org_named("Foreign", 0);
        repo.create(&late, &member_of(bob, "bob@example.com", OrgRole::Admin, 0), &fixtures::audit()).await.unwrap();
        repo.create(&early, &member_of(bob, "bob@example.com", OrgRole::Admin, 0), &fixtures::audit()).await.unwrap();
        repo.create(&foreign, &member_of(bob, "bob@example.com", OrgRole::Admin, 0), &fixtures::audit()).await.unwrap();
        repo.add_member(late.id, &member_of(ada, "ada@example.com", OrgRole::Admin, 30)).await.unwrap();
        repo.add_member(early.id, &member_of(ada, "ada@example.com", OrgRole::Member, 10)).await.unwrap();

        let mine = repo.list_for_user(ada).await.unwrap();
        let seen: Vec<(String, OrgRole)> =
            mine.iter().map(|m| (m.organization.name.clone(), m.role)).collect();
        assert_eq!(seen, vec![("Early".to_owned(), OrgRole::Member), ("Late".to_owned(), OrgRole::Admin)]);
        assert_eq!(mine[0].organization, early);
        assert!(repo.list_for_user(UserId::new()).await.unwrap().is_empty());
    }

    async fn a_profile_update_replaces_name_and_profile_and_answers_the_stored_org(db) {
        let (repo, org, _) = org_with_admin(db, "Acme").await;
        let profile = OrgProfile {
            website: Some("https://acme.example.com".into()),
            contact_email: Some(EmailAddress::parse("dev@acme.example.com").unwrap()),
            description: Some("We build apps.".into()),
            logo: Some("/api/images/logo".into()),
        };
        let updated = repo.update_profile(org.id, "Acme Inc", &profile, at(5), &fixtures::audit()).await.unwrap();
        assert_eq!(updated.name, "Acme Inc");
        assert_eq!(updated.profile, profile);
        assert_eq!(updated.created_at, org.created_at);
        assert_eq!(updated.updated_at, at(5));
        assert_eq!(repo.get(org.id).await.unwrap(), Some(updated));

        let cleared = repo.update_profile(org.id, "Acme", &OrgProfile::default(), at(6), &fixtures::audit()).await.unwrap();
        assert_eq!(cleared.profile, OrgProfile::default());
        assert_eq!(repo.get(org.id).await.unwrap().unwrap().profile, OrgProfile::default());
    }

    async fn updating_an_unknown_org_is_not_found_and_touches_no_other(db) {
        let (repo, org, _) = org_with_admin(db, "Acme").await;
        let result = repo.update_profile(OrgId::new(), "X", &OrgProfile::default(), at(5), &fixtures::audit()).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
        assert_eq!(repo.get(org.id).await.unwrap(), Some(org));
    }

    async fn deleting_an_org_removes_its_members_and_invitations_only(db) {
        let (repo, org, admin) = org_with_admin(db, "Acme").await;
        let (_, other, other_admin) = org_with_admin(db, "Other").await;
        insert_invite(db, org.id, admin, "eve@example.com");
        insert_invite(db, other.id, other_admin, "eve@example.com");
        assert_eq!(count_rows(db, org.id), (1, 1, 1));

        assert!(repo.delete(org.id, &fixtures::audit()).await.unwrap().is_empty(), "no image rows");
        assert_eq!(count_rows(db, org.id), (0, 0, 0));
        assert_eq!(count_rows(db, other.id), (1, 1, 1), "another organization is untouched");
        assert!(repo.list_for_user(admin).await.unwrap().is_empty());
    }

    async fn deleting_an_org_answers_the_ids_of_its_image_rows_and_removes_them(db) {
        use crate::fixtures::app_fixtures::image;
        use adapter_db::schema::images;
        let (repo, org, _) = org_with_admin(db, "Acme").await;
        let (_, other, _) = org_with_admin(db, "Other").await;
        let mut mine = vec![image(db, org.id, None, 1), image(db, org.id, Some("com.gone.app"), 2)];
        let theirs = image(db, other.id, None, 3);

        let mut removed = repo.delete(org.id, &fixtures::audit()).await.unwrap();
        removed.sort();
        mine.sort();
        assert_eq!(removed, mine);
        let mut conn = db.connection().unwrap();
        let left: Vec<String> = images::table.select(images::id).load(&mut *conn).unwrap();
        assert_eq!(left, [theirs.to_string()], "only another organization's image row remains");
    }

    async fn an_org_that_owns_apps_is_not_deleted(db) {
        let (repo, org, admin) = org_with_admin(db, "Acme").await;
        fixtures::app(db, org.id, admin, "com.acme.app");
        let result = repo.delete(org.id, &fixtures::audit()).await;
        assert!(matches!(&result, Err(RepoError::Conflict(c)) if c == "apps_remain"), "{result:?}");
        assert_eq!(count_rows(db, org.id), (1, 1, 0), "nothing was deleted");
    }

    async fn deleting_an_unknown_org_is_not_found(db) {
        let repo = DieselOrgRepository::new(db.clone());
        assert!(matches!(repo.delete(OrgId::new(), &fixtures::audit()).await, Err(RepoError::NotFound)));
    }

    async fn members_carry_their_account_email_oldest_first(db) {
        let (repo, org, admin) = org_with_admin(db, "Acme").await;
        let zed = fixtures::account(db, "Zed@Example.com");
        let bob = fixtures::account(db, "bob@example.com");
        repo.add_member(org.id, &member_of(zed, "zed@example.com", OrgRole::Member, 20)).await.unwrap();
        repo.add_member(org.id, &member_of(bob, "bob@example.com", OrgRole::Admin, 10)).await.unwrap();
        let members = repo.members(org.id).await.unwrap();
        let admin_email = account_email(db, admin);
        assert_eq!(
            members,
            vec![
                member_of(admin, &admin_email, OrgRole::Admin, 0),
                member_of(bob, "bob@example.com", OrgRole::Admin, 10),
                member_of(zed, "zed@example.com", OrgRole::Member, 20),
            ]
        );
    }

    async fn adding_an_existing_member_is_a_duplicate_and_keeps_the_role(db) {
        let (repo, org, admin) = org_with_admin(db, "Acme").await;
        let result = repo.add_member(org.id, &member_of(admin, "x@example.com", OrgRole::Member, 5)).await;
        assert!(matches!(result, Err(RepoError::Duplicate("member"))), "{result:?}");
        let directory = DieselMemberDirectory::new(db.clone());
        assert_eq!(directory.role_of(org.id, admin).await.unwrap(), Some(OrgRole::Admin));
    }

    async fn adding_a_member_to_an_unknown_org_is_not_found(db) {
        let repo = DieselOrgRepository::new(db.clone());
        let bob = fixtures::account(db, "bob@example.com");
        let result = repo.add_member(OrgId::new(), &member_of(bob, "bob@example.com", OrgRole::Member, 0)).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
    }

    async fn roles_change_and_a_second_admin_may_be_demoted(db) {
        let (repo, org, admin) = org_with_admin(db, "Acme").await;
        let bob = fixtures::account(db, "bob@example.com");
        repo.add_member(org.id, &member_of(bob, "bob@example.com", OrgRole::Member, 1)).await.unwrap();
        let directory = DieselMemberDirectory::new(db.clone());

        repo.set_role(org.id, bob, OrgRole::Admin, &fixtures::audit()).await.unwrap();
        assert_eq!(directory.role_of(org.id, bob).await.unwrap(), Some(OrgRole::Admin));
        repo.set_role(org.id, admin, OrgRole::Member, &fixtures::audit()).await.unwrap();
        assert_eq!(directory.role_of(org.id, admin).await.unwrap(), Some(OrgRole::Member));
        repo.set_role(org.id, admin, OrgRole::Member, &fixtures::audit()).await.unwrap();
        assert_eq!(directory.role_of(org.id, admin).await.unwrap(), Some(OrgRole::Member));
    }

    async fn demoting_the_only_admin_is_a_conflict_and_changes_nothing(db) {
        let (repo, org, admin) = org_with_admin(db, "Acme").await;
        let bob = fixtures::account(db, "bob@example.com");
        repo.add_member(org.id, &member_of(bob, "bob@example.com", OrgRole::Member, 1)).await.unwrap();
        let result = repo.set_role(org.id, admin, OrgRole::Member, &fixtures::audit()).await;
        assert!(matches!(&result, Err(RepoError::Conflict(c)) if c == "last_admin"), "{result:?}");
        let directory = DieselMemberDirectory::new(db.clone());
        assert_eq!(directory.role_of(org.id, admin).await.unwrap(), Some(OrgRole::Admin));
        repo.set_role(org.id, admin, OrgRole::Admin, &fixtures::audit()).await.unwrap();
        repo.set_role(org.id, bob, OrgRole::Member, &fixtures::audit()).await.unwrap();
    }

    async fn changing_the_role_of_a_non_member_is_not_found(db) {
        let (repo, org, _) = org_with_admin(db, "Acme").await;
        let bob = fixtures::account(db, "bob@example.com");
        let result = repo.set_role(org.id, bob, OrgRole::Admin, &fixtures::audit()).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
        assert!(matches!(repo.remove_member(org.id, bob, &fixtures::audit()).await, Err(RepoError::NotFound)));
    }

    async fn a_member_is_removed_and_a_second_admin_may_leave(db) {
        let (repo, org, admin) = org_with_admin(db, "Acme").await;
        let bob = fixtures::account(db, "bob@example.com");
        let cy = fixtures::account(db, "cy@example.com");
        repo.add_member(org.id, &member_of(bob, "bob@example.com", OrgRole::Admin, 1)).await.unwrap();
        repo.add_member(org.id, &member_of(cy, "cy@example.com", OrgRole::Member, 2)).await.unwrap();

        repo.remove_member(org.id, cy, &fixtures::audit()).await.unwrap();
        repo.remove_member(org.id, admin, &fixtures::audit()).await.unwrap();
        let left: Vec<UserId> = repo.members(org.id).await.unwrap().iter().map(|m| m.user_id).collect();
        assert_eq!(left, vec![bob]);
        assert!(repo.list_for_user(cy).await.unwrap().is_empty());
    }

    async fn removing_the_only_admin_is_a_conflict_and_changes_nothing(db) {
        let (repo, org, admin) = org_with_admin(db, "Acme").await;
        let bob = fixtures::account(db, "bob@example.com");
        repo.add_member(org.id, &member_of(bob, "bob@example.com", OrgRole::Member, 1)).await.unwrap();
        let result = repo.remove_member(org.id, admin, &fixtures::audit()).await;
        assert!(matches!(&result, Err(RepoError::Conflict(c)) if c == "last_admin"), "{result:?}");
        assert_eq!(repo.members(org.id).await.unwrap().len(), 2);
        let alone = org_with_admin(db, "Solo").await;
        let result = alone.0.remove_member(alone.1.id, alone.2, &fixtures::audit()).await;
        assert!(matches!(&result, Err(RepoError::Conflict(c)) if c == "last_admin"), "{result:?}");
    }

    async fn two_admins_demoting_each_other_at_once_leave_one_admin(db) {
        for round in 0..5 {
            let (repo, org, ada) = org_with_admin(db, &format!("Round {round}")).await;
            let bob = fixtures::account(db, &format!("bob{round}@example.com"));
            repo.add_member(org.id, &member_of(bob, &format!("bob{round}@example.com"), OrgRole::Admin, 1))
                .await
                .unwrap();
            let (first, second) = (repo.clone(), repo.clone());
            let a = tokio::spawn(async move { first.set_role(org.id, ada, OrgRole::Member, &fixtures::audit()).await });
            let b = tokio::spawn(async move { second.set_role(org.id, bob, OrgRole::Member, &fixtures::audit()).await });
            let results = [a.await.unwrap(), b.await.unwrap()];
            let succeeded = results.iter().filter(|r| r.is_ok()).count();
            assert_eq!(succeeded, 1, "round {round}: {results:?}");
            assert!(
                results.iter().any(|r| matches!(r, Err(RepoError::Conflict(c)) if c == "last_admin")),
                "{results:?}"
            );
            let admins = repo.members(org.id).await.unwrap().iter().filter(|m| m.is_admin()).count();
            assert_eq!(admins, 1, "round {round}");
        }
    }

    async fn two_admins_leaving_at_once_leave_one_admin(db) {
        for round in 0..5 {
            let (repo, org, ada) = org_with_admin(db, &format!("Round {round}")).await;
            let bob = fixtures::account(db, &format!("bob{round}@example.com"));
            repo.add_member(org.id, &member_of(bob, &format!("bob{round}@example.com"), OrgRole::Admin, 1))
                .await
                .unwrap();
            let (first, second) = (repo.clone(), repo.clone());
            let a = tokio::spawn(async move { first.remove_member(org.id, ada, &fixtures::audit()).await });
            let b = tokio::spawn(async move { second.set_role(org.id, bob, OrgRole::Member, &fixtures::audit()).await });
            let results = [a.await.unwrap(), b.await.unwrap()];
            assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1, "round {round}: {results:?}");
            let admins = repo.members(org.id).await.unwrap().iter().filter(|m| m.is_admin()).count();
            assert_eq!(admins, 1, "round {round}");
        }
    }

    async fn another_org_cannot_read_or_change_members(db) {
        let (repo, acme, ada) = org_with_admin(db, "Acme").await;
        let (_, other, eve) = org_with_admin(db, "Other").await;
        let directory = DieselMemberDirectory::new(db.clone());
        assert_eq!(directory.role_of(other.id, ada).await.unwrap(), None);
        assert!(matches!(repo.set_role(other.id, ada, OrgRole::Member, &fixtures::audit()).await, Err(RepoError::NotFound)));
        assert!(matches!(repo.remove_member(other.id, ada, &fixtures::audit()).await, Err(RepoError::NotFound)));
        assert!(matches!(repo.set_role(acme.id, eve, OrgRole::Member, &fixtures::audit()).await, Err(RepoError::NotFound)));
        let acme_members: Vec<UserId> = repo.members(acme.id).await.unwrap().iter().map(|m| m.user_id).collect();
        assert_eq!(acme_members, vec![ada]);
        assert_eq!(directory.role_of(acme.id, ada).await.unwrap(), Some(OrgRole::Admin));
        assert_eq!(directory.role_of(other.id, eve).await.unwrap(), Some(OrgRole::Admin));
    }
}
