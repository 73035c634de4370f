//! An organization's second-factor requirement (PRODUCT.md §1a): stored on the organization, read with
//! the membership in one lookup by the membership door, changed with its audit entry in one transaction;
//! and the members list telling who has a verified second factor.

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::{self, at};
use adapter_db::Db;
use adapter_db::repos::{DieselFactorRepository, DieselMemberDirectory, DieselOrgRepository};
use adapter_db::schema::audit_log;
use diesel::prelude::*;
use domain::audit::AuditAction;
use domain::common::{OrgId, RepoError, UserId};
use domain::identity::factors::{Factor, FactorStatus, FactorType};
use domain::identity::ports::FactorRepository;
use domain::orgs::{Member, MemberDirectory, MemberStanding, OrgRepository, OrgRole, Organization};

/// An organization created through the repository, its admin `admin`.
async fn org_of(db: &Db, admin: UserId, address: &str) -> (DieselOrgRepository, Organization) {
    let repo = DieselOrgRepository::new(db.clone());
    let org = Organization::new("Acme".into(), at(0));
    let first = Member {
        user_id: admin,
        email: fixtures::email(address),
        role: OrgRole::Admin,
        joined_at: at(0),
        has_two_factor: false,
    };
    repo.create(&org, &first, &fixtures::audit()).await.unwrap();
    (repo, org)
}

fn factor(user: UserId, status: FactorStatus) -> Factor {
    Factor {
        id: uuid::Uuid::new_v4(),
        user_id: user,
        factor_type: FactorType::Totp,
        status,
        friendly_name: Some("Phone".into()),
        sealed_secret: "v1:sealed".into(),
        last_used_step: None,
        created_at: at(0),
        updated_at: at(0),
        last_challenged_at: None,
        webauthn: None,
    }
}

fn audited_actions(db: &Db, org: OrgId) -> Vec<String> {
    let mut conn = db.connection().unwrap();
    audit_log::table
        .filter(audit_log::org_id.eq(org.to_string()))
        .order(audit_log::at.asc())
        .select(audit_log::action)
        .load(&mut *conn)
        .unwrap()
}

contract! {
    async fn a_new_organization_does_not_require_a_second_factor_and_the_door_reads_it_with_the_role(db) {
        let ada = fixtures::account(db, "ada@example.com");
        let (repo, org) = org_of(db, ada, "ada@example.com").await;
        assert!(!repo.get(org.id).await.unwrap().unwrap().require_two_factor);
        let directory = DieselMemberDirectory::new(db.clone());
        assert_eq!(
            directory.standing_of(org.id, ada).await.unwrap(),
            Some(MemberStanding { role: OrgRole::Admin, org_requires_two_factor: false })
        );
        assert_eq!(directory.standing_of(org.id, UserId::new()).await.unwrap(), None, "not a member");
        assert_eq!(directory.standing_of(OrgId::new(), ada).await.unwrap(), None, "no such organization");
    }

    async fn the_requirement_is_stored_with_its_audit_entry_and_read_by_the_door_and_the_lists(db) {
        let ada = fixtures::account(db, "ada@example.com");
        let (repo, org) = org_of(db, ada, "ada@example.com").await;
        let (_, other) = org_of(db, fixtures::account(db, "eve@example.com"), "eve@example.com").await;
        let entry = fixtures::audit_in(Some(org.id), AuditAction::OrgUpdated, at(5));
        let stored = repo.set_two_factor_requirement(org.id, true, at(5), &entry).await.unwrap();
        assert!(stored.require_two_factor);
        assert_eq!(stored.updated_at, at(5));
        assert_eq!((stored.name.as_str(), stored.profile.clone()), (org.name.as_str(), org.profile.clone()));
        assert_eq!(repo.get(org.id).await.unwrap(), Some(stored.clone()));
        assert!(audited_actions(db, org.id).contains(&AuditAction::OrgUpdated.code().to_owned()));
        let mine = repo.list_for_user(ada).await.unwrap();
        assert!(mine[0].organization.require_two_factor);
        let directory = DieselMemberDirectory::new(db.clone());
        assert_eq!(
            directory.standing_of(org.id, ada).await.unwrap(),
            Some(MemberStanding { role: OrgRole::Admin, org_requires_two_factor: true })
        );
        assert!(!repo.get(other.id).await.unwrap().unwrap().require_two_factor, "another organization is untouched");

        let off = repo.set_two_factor_requirement(org.id, false, at(6), &fixtures::audit()).await.unwrap();
        assert!(!off.require_two_factor);
        assert!(!directory.standing_of(org.id, ada).await.unwrap().unwrap().org_requires_two_factor);
    }

    async fn setting_the_requirement_of_an_unknown_organization_is_not_found_and_writes_no_entry(db) {
        let repo = DieselOrgRepository::new(db.clone());
        let missing = OrgId::new();
        let entry = fixtures::audit_in(Some(missing), AuditAction::OrgUpdated, at(5));
        let result = repo.set_two_factor_requirement(missing, true, at(5), &entry).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
        assert!(audited_actions(db, missing).is_empty());
    }

    async fn members_say_who_has_a_verified_second_factor(db) {
        let ada = fixtures::account(db, "ada@example.com");
        let bob = fixtures::account(db, "bob@example.com");
        let cy = fixtures::account(db, "cy@example.com");
        let (repo, org) = org_of(db, ada, "ada@example.com").await;
        for (user, address) in [(bob, "bob@example.com"), (cy, "cy@example.com")] {
            let member = Member {
                user_id: user,
                email: fixtures::email(address),
                role: OrgRole::Member,
                joined_at: at(1),
                has_two_factor: false,
            };
            repo.add_member(org.id, &member).await.unwrap();
        }
        let factors = DieselFactorRepository::new(db.clone());
        factors.insert(&factor(bob, FactorStatus::Verified)).await.unwrap();
        factors.insert(&factor(bob, FactorStatus::Verified)).await.unwrap();
        factors.insert(&factor(cy, FactorStatus::Unverified)).await.unwrap();
        let seen: Vec<(UserId, bool)> =
            repo.members(org.id).await.unwrap().iter().map(|m| (m.user_id, m.has_two_factor)).collect();
        assert_eq!(seen.len(), 3, "two factors add no row: {seen:?}");
        assert!(seen.contains(&(ada, false)));
        assert!(seen.contains(&(bob, true)));
        assert!(seen.contains(&(cy, false)), "an unverified factor does not count");
    }
}
