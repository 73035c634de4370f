//! `InviteRepository`: invitations, their outbox e-mails, resend, rescind, accept.

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::{self, at, audit, email};
use adapter_db::Db;
use adapter_db::repos::{DieselInviteRepository, DieselMemberDirectory, DieselOrgRepository};
use adapter_db::schema::{email_outbox, org_invites};
use chrono::Duration;
use diesel::prelude::*;
use domain::common::{InviteId, OrgId, RepoError, UserId};
use domain::mail::{EmailKind, OutgoingEmail};
use domain::orgs::{Invite, InviteRepository, Member, MemberDirectory, OrgRepository, OrgRole};

struct Setup {
    invites: DieselInviteRepository,
    orgs: DieselOrgRepository,
    org: OrgId,
    admin: UserId,
}

async fn setup(db: &Db) -> Setup {
    let admin = fixtures::account(
        db,
        &format!("admin-{}@example.com", &UserId::new().to_string()[..8]),
    );
    let org = fixtures::organization(db, "Acme");
    fixtures::member(db, org, admin, "admin", at(0));
    Setup {
        invites: DieselInviteRepository::new(db.clone()),
        orgs: DieselOrgRepository::new(db.clone()),
        org,
        admin,
    }
}

fn invite(org: OrgId, by: UserId, address: &str, hash: &str, minutes: i64) -> Invite {
    Invite {
        id: InviteId::new(),
        org_id: org,
        email: email(address),
        role: OrgRole::Member,
        token_hash: hash.to_owned(),
        invited_by: by,
        invited_at: at(minutes),
        expires_at: at(minutes) + Duration::days(7),
        email_sent_count: 1,
        accepted_at: None,
        cancelled_at: None,
    }
}

fn mail(to: &str, link: &str) -> OutgoingEmail {
    OutgoingEmail {
        kind: EmailKind::OrgInvite,
        to: email(to),
        subject: format!("You are invited ({link})"),
        text: format!("Join us: {link}"),
        link: Some(link.to_owned()),
    }
}

/// Every outbox row: (kind, recipient, subject, body, link, attempts, next_attempt_at), oldest first.
type OutboxTuple = (String, String, String, String, Option<String>, i32, i64);

fn outbox(db: &Db) -> Vec<OutboxTuple> {
    let mut conn = db.connection().unwrap();
    email_outbox::table
        .order((email_outbox::created_at, email_outbox::subject))
        .select((
            email_outbox::kind,
            email_outbox::recipient,
            email_outbox::subject,
            email_outbox::body,
            email_outbox::link,
            email_outbox::attempts,
            email_outbox::next_attempt_at,
        ))
        .load(&mut *conn)
        .unwrap()
}

fn accepted_by(db: &Db, id: InviteId) -> Option<String> {
    let mut conn = db.connection().unwrap();
    org_invites::table
        .find(id.to_string())
        .select(org_invites::accepted_by)
        .first(&mut *conn)
        .unwrap()
}

fn joining(user: UserId, address: &str, role: OrgRole, minutes: i64) -> Member {
    Member {
        user_id: user,
        email: email(address),
        role,
        joined_at: at(minutes),
        has_two_factor: false,
    }
}

contract! {
    async fn a_created_invitation_is_stored_with_its_email_queued(db) {
        let s = setup(db).await;
        let new = invite(s.org, s.admin, "eve@example.com", "h1", 5);
        s.invites.create(&new, &mail("eve@example.com", "https://p/invite/accept?token=t1"), &audit()).await.unwrap();

        assert_eq!(s.invites.find_by_token_hash("h1").await.unwrap(), Some(new.clone()));
        assert_eq!(s.invites.pending(s.org).await.unwrap(), vec![new]);
        assert_eq!(
            outbox(db),
            vec![(
                "org_invite".to_owned(),
                "eve@example.com".to_owned(),
                "You are invited (https://p/invite/accept?token=t1)".to_owned(),
                "Join us: https://p/invite/accept?token=t1".to_owned(),
                Some("https://p/invite/accept?token=t1".to_owned()),
                0,
                at(5).timestamp_millis(),
            )]
        );
    }

    async fn a_second_open_invitation_of_an_address_is_a_duplicate_and_queues_nothing(db) {
        let s = setup(db).await;
        let first = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&first, &mail("eve@example.com", "l1"), &audit()).await.unwrap();
        let second = invite(s.org, s.admin, "eve@example.com", "h2", 60);
        let result = s.invites.create(&second, &mail("eve@example.com", "l2"), &audit()).await;
        assert!(matches!(result, Err(RepoError::Duplicate("invite"))), "{result:?}");
        assert_eq!(s.invites.pending(s.org).await.unwrap(), vec![first]);
        assert_eq!(s.invites.find_by_token_hash("h2").await.unwrap(), None);
        assert_eq!(outbox(db).len(), 1, "the second e-mail was rolled back");
    }

    async fn re_inviting_after_expiry_cancels_the_expired_invitation(db) {
        let s = setup(db).await;
        let old = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&old, &mail("eve@example.com", "l1"), &audit()).await.unwrap();
        let later = 7 * 24 * 60;
        let new = invite(s.org, s.admin, "eve@example.com", "h2", later);
        s.invites.create(&new, &mail("eve@example.com", "l2"), &audit()).await.unwrap();

        assert_eq!(s.invites.pending(s.org).await.unwrap(), vec![new]);
        let cancelled = s.invites.find_by_token_hash("h1").await.unwrap().unwrap();
        assert_eq!(cancelled.cancelled_at, Some(at(later)));
        assert_eq!(outbox(db).len(), 2);
    }

    async fn concurrent_invitations_of_one_address_store_one(db) {
        let s = setup(db).await;
        let mut tasks = Vec::new();
        for i in 0..6 {
            let repo = s.invites.clone();
            let new = invite(s.org, s.admin, "eve@example.com", &format!("h{i}"), i);
            tasks.push(tokio::spawn(async move { repo.create(&new, &mail("eve@example.com", "l"), &audit()).await }));
        }
        let mut stored = 0;
        for task in tasks {
            match task.await.unwrap() {
                Ok(()) => stored += 1,
                Err(RepoError::Duplicate(what)) => assert_eq!(what, "invite"),
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(stored, 1);
        assert_eq!(s.invites.pending(s.org).await.unwrap().len(), 1);
        assert_eq!(outbox(db).len(), 1);
    }

    async fn an_invitation_to_an_unknown_org_is_not_found_and_queues_nothing(db) {
        let s = setup(db).await;
        let result = s.invites.create(&invite(OrgId::new(), s.admin, "eve@example.com", "h1", 0), &mail("eve@example.com", "l"), &audit()).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
        assert!(outbox(db).is_empty());
    }

    async fn the_same_address_may_be_invited_by_two_orgs(db) {
        let a = setup(db).await;
        let b = setup(db).await;
        let in_a = invite(a.org, a.admin, "eve@example.com", "ha", 0);
        let in_b = invite(b.org, b.admin, "eve@example.com", "hb", 1);
        a.invites.create(&in_a, &mail("eve@example.com", "la"), &audit()).await.unwrap();
        b.invites.create(&in_b, &mail("eve@example.com", "lb"), &audit()).await.unwrap();
        assert_eq!(a.invites.pending(a.org).await.unwrap(), vec![in_a]);
        assert_eq!(b.invites.pending(b.org).await.unwrap(), vec![in_b]);
    }

    async fn pending_lists_open_invitations_expired_included_oldest_first(db) {
        let s = setup(db).await;
        let newer = invite(s.org, s.admin, "b@example.com", "hb", 30);
        let mut expired = invite(s.org, s.admin, "a@example.com", "ha", 10);
        expired.expires_at = at(11);
        let accepted = invite(s.org, s.admin, "c@example.com", "hc", 0);
        let cancelled = invite(s.org, s.admin, "d@example.com", "hd", 0);
        for i in [&newer, &expired, &accepted, &cancelled] {
            s.invites.create(i, &mail(i.email.as_str(), "l"), &audit()).await.unwrap();
        }
        let cy = fixtures::account(db, "c@example.com");
        s.invites.accept(s.org, accepted.id, &accepted.token_hash, &joining(cy, "c@example.com", OrgRole::Member, 40), &audit()).await.unwrap();
        s.invites.rescind(s.org, &email("d@example.com"), at(40), &audit()).await.unwrap();

        assert_eq!(s.invites.pending(s.org).await.unwrap(), vec![expired, newer]);
        assert!(s.invites.pending(OrgId::new()).await.unwrap().is_empty());
    }

    async fn the_contents_are_the_organization_its_members_and_its_open_invitations_in_one_read(db) {
        let s = setup(db).await;
        let newer = invite(s.org, s.admin, "b@example.com", "hb", 30);
        let mut expired = invite(s.org, s.admin, "a@example.com", "ha", 10);
        expired.expires_at = at(11);
        expired.email_sent_count = 3;
        expired.role = OrgRole::Admin;
        let accepted = invite(s.org, s.admin, "c@example.com", "hc", 0);
        let cancelled = invite(s.org, s.admin, "d@example.com", "hd", 0);
        for i in [&newer, &expired, &accepted, &cancelled] {
            s.invites.create(i, &mail(i.email.as_str(), "l"), &audit()).await.unwrap();
        }
        let cy = fixtures::account(db, "c@example.com");
        s.invites.accept(s.org, accepted.id, &accepted.token_hash, &joining(cy, "c@example.com", OrgRole::Member, 40), &audit()).await.unwrap();
        s.invites.rescind(s.org, &email("d@example.com"), at(40), &audit()).await.unwrap();
        // Two members who joined at the same moment: the user id decides, as in `members`.
        let (x, y) = (fixtures::account(db, "x@example.com"), fixtures::account(db, "y@example.com"));
        fixtures::member(db, s.org, x, "member", at(50));
        fixtures::member(db, s.org, y, "member", at(50));
        // Another organization's member and invitation are not in it.
        let other = setup(db).await;
        other.invites.create(&invite(other.org, other.admin, "e@example.com", "he", 1), &mail("e@example.com", "l"), &audit()).await.unwrap();

        let contents = s.orgs.contents(s.org).await.unwrap().unwrap();
        assert_eq!(contents.organization, s.orgs.get(s.org).await.unwrap().unwrap());
        assert_eq!(contents.members, s.orgs.members(s.org).await.unwrap());
        assert_eq!(contents.members.len(), 4);
        assert_eq!(contents.pending_invites, vec![expired, newer]);
        assert_eq!(contents.pending_invites, s.invites.pending(s.org).await.unwrap());
        assert_eq!(s.orgs.contents(OrgId::new()).await.unwrap(), None);
    }

    async fn a_token_digest_finds_the_invitation_whatever_its_state(db) {
        let s = setup(db).await;
        let new = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&new, &mail("eve@example.com", "l"), &audit()).await.unwrap();
        s.invites.rescind(s.org, &email("eve@example.com"), at(3), &audit()).await.unwrap();
        let found = s.invites.find_by_token_hash("h1").await.unwrap().unwrap();
        assert_eq!(found.cancelled_at, Some(at(3)));
        assert_eq!(found.id, new.id);
        assert_eq!(s.invites.find_by_token_hash("unknown").await.unwrap(), None);
    }

    async fn a_resend_replaces_the_token_moves_the_expiry_counts_and_queues_the_email(db) {
        let s = setup(db).await;
        let new = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&new, &mail("eve@example.com", "l1"), &audit()).await.unwrap();
        let now = at(60);
        let expires = now + Duration::days(7);
        let stored = s
            .invites
            .resend(s.org, &email("eve@example.com"), 1, "h2", expires, now, &mail("eve@example.com", "l2"), &audit())
            .await
            .unwrap();

        let mut expected = new.clone();
        expected.token_hash = "h2".into();
        expected.expires_at = expires;
        expected.email_sent_count = 2;
        assert_eq!(stored, expected);
        assert_eq!(s.invites.find_by_token_hash("h1").await.unwrap(), None, "the old link stops working");
        assert_eq!(s.invites.find_by_token_hash("h2").await.unwrap(), Some(expected));
        let queued = outbox(db);
        assert_eq!(queued.len(), 2);
        assert_eq!(queued[1].4.as_deref(), Some("l2"));
        assert_eq!(queued[1].6, now.timestamp_millis());
    }

    async fn resending_without_an_open_invitation_is_not_found(db) {
        let s = setup(db).await;
        let result = s.invites.resend(s.org, &email("eve@example.com"), 1, "h2", at(99), at(1), &mail("eve@example.com", "l"), &audit()).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
        s.invites.create(&invite(s.org, s.admin, "eve@example.com", "h1", 0), &mail("eve@example.com", "l"), &audit()).await.unwrap();
        s.invites.rescind(s.org, &email("eve@example.com"), at(1), &audit()).await.unwrap();
        let result = s.invites.resend(s.org, &email("eve@example.com"), 1, "h2", at(99), at(2), &mail("eve@example.com", "l"), &audit()).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
        assert_eq!(outbox(db).len(), 1);
    }

    async fn resending_an_expired_invitation_is_a_conflict_and_changes_nothing(db) {
        let s = setup(db).await;
        let new = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&new, &mail("eve@example.com", "l"), &audit()).await.unwrap();
        let now = new.expires_at;
        let result = s.invites.resend(s.org, &email("eve@example.com"), 1, "h2", now + Duration::days(7), now, &mail("eve@example.com", "l2"), &audit()).await;
        assert!(matches!(&result, Err(RepoError::Conflict(c)) if c == "invite_expired"), "{result:?}");
        assert_eq!(s.invites.find_by_token_hash("h1").await.unwrap(), Some(new));
        assert_eq!(outbox(db).len(), 1, "no e-mail queued");
    }

    async fn another_org_cannot_resend_or_rescind_an_invitation(db) {
        let s = setup(db).await;
        let other = setup(db).await;
        let new = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&new, &mail("eve@example.com", "l"), &audit()).await.unwrap();
        let resent = other.invites.resend(other.org, &email("eve@example.com"), 1, "h2", at(99), at(1), &mail("eve@example.com", "l"), &audit()).await;
        assert!(matches!(resent, Err(RepoError::NotFound)), "{resent:?}");
        let rescinded = other.invites.rescind(other.org, &email("eve@example.com"), at(1), &audit()).await;
        assert!(matches!(rescinded, Err(RepoError::NotFound)), "{rescinded:?}");
        assert_eq!(s.invites.pending(s.org).await.unwrap(), vec![new]);
    }

    async fn a_rescinded_invitation_is_closed_and_a_second_rescind_is_not_found(db) {
        let s = setup(db).await;
        s.invites.create(&invite(s.org, s.admin, "eve@example.com", "h1", 0), &mail("eve@example.com", "l"), &audit()).await.unwrap();
        s.invites.rescind(s.org, &email("eve@example.com"), at(2), &audit()).await.unwrap();
        assert!(s.invites.pending(s.org).await.unwrap().is_empty());
        assert_eq!(s.invites.find_by_token_hash("h1").await.unwrap().unwrap().cancelled_at, Some(at(2)));
        assert!(matches!(s.invites.rescind(s.org, &email("eve@example.com"), at(3), &audit()).await, Err(RepoError::NotFound)));
        // A new invitation may follow a rescinded one.
        s.invites.create(&invite(s.org, s.admin, "eve@example.com", "h2", 4), &mail("eve@example.com", "l"), &audit()).await.unwrap();
    }

    async fn accepting_marks_the_invitation_and_adds_the_member_atomically(db) {
        let s = setup(db).await;
        let mut new = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        new.role = OrgRole::Admin;
        s.invites.create(&new, &mail("eve@example.com", "l"), &audit()).await.unwrap();
        let eve = fixtures::account(db, "eve@example.com");
        s.invites.accept(s.org, new.id, &new.token_hash, &joining(eve, "eve@example.com", OrgRole::Admin, 9), &audit()).await.unwrap();

        let stored = s.invites.find_by_token_hash("h1").await.unwrap().unwrap();
        assert_eq!(stored.accepted_at, Some(at(9)));
        assert_eq!(stored.cancelled_at, None);
        assert_eq!(accepted_by(db, new.id), Some(eve.to_string()));
        let directory = DieselMemberDirectory::new(db.clone());
        assert_eq!(directory.role_of(s.org, eve).await.unwrap(), Some(OrgRole::Admin));
        let members = s.orgs.members(s.org).await.unwrap();
        assert_eq!(members.last(), Some(&joining(eve, "eve@example.com", OrgRole::Admin, 9)));
        assert!(s.invites.pending(s.org).await.unwrap().is_empty());
    }

    async fn accepting_a_closed_invitation_is_a_conflict(db) {
        let s = setup(db).await;
        let eve = fixtures::account(db, "eve@example.com");
        let bob = fixtures::account(db, "bob@example.com");
        let accepted = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&accepted, &mail("eve@example.com", "l"), &audit()).await.unwrap();
        s.invites.accept(s.org, accepted.id, &accepted.token_hash, &joining(eve, "eve@example.com", OrgRole::Member, 1), &audit()).await.unwrap();
        let again = s.invites.accept(s.org, accepted.id, &accepted.token_hash, &joining(eve, "eve@example.com", OrgRole::Member, 2), &audit()).await;
        assert!(matches!(&again, Err(RepoError::Conflict(c)) if c == "invite_closed"), "{again:?}");

        let cancelled = invite(s.org, s.admin, "bob@example.com", "h2", 0);
        s.invites.create(&cancelled, &mail("bob@example.com", "l"), &audit()).await.unwrap();
        s.invites.rescind(s.org, &email("bob@example.com"), at(1), &audit()).await.unwrap();
        let result = s.invites.accept(s.org, cancelled.id, &cancelled.token_hash, &joining(bob, "bob@example.com", OrgRole::Member, 2), &audit()).await;
        assert!(matches!(&result, Err(RepoError::Conflict(c)) if c == "invite_closed"), "{result:?}");
        assert_eq!(DieselMemberDirectory::new(db.clone()).role_of(s.org, bob).await.unwrap(), None);
        assert_eq!(s.invites.find_by_token_hash("h1").await.unwrap().unwrap().accepted_at, Some(at(1)));
    }

    async fn accepting_as_an_existing_member_is_a_duplicate_and_changes_nothing(db) {
        let s = setup(db).await;
        let eve = fixtures::account(db, "eve@example.com");
        fixtures::member(db, s.org, eve, "member", at(0));
        let new = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&new, &mail("eve@example.com", "l"), &audit()).await.unwrap();
        let result = s.invites.accept(s.org, new.id, &new.token_hash, &joining(eve, "eve@example.com", OrgRole::Admin, 5), &audit()).await;
        assert!(matches!(result, Err(RepoError::Duplicate("member"))), "{result:?}");
        assert_eq!(s.invites.pending(s.org).await.unwrap(), vec![new], "the invitation is still open");
        assert_eq!(accepted_by(db, s.invites.pending(s.org).await.unwrap()[0].id), None);
        assert_eq!(DieselMemberDirectory::new(db.clone()).role_of(s.org, eve).await.unwrap(), Some(OrgRole::Member));
    }

    async fn accepting_an_unknown_invitation_or_through_another_org_is_not_found(db) {
        let s = setup(db).await;
        let other = setup(db).await;
        let eve = fixtures::account(db, "eve@example.com");
        let new = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&new, &mail("eve@example.com", "l"), &audit()).await.unwrap();
        let member = joining(eve, "eve@example.com", OrgRole::Member, 1);
        assert!(matches!(s.invites.accept(s.org, InviteId::new(), "h1", &member, &audit()).await, Err(RepoError::NotFound)));
        assert!(matches!(other.invites.accept(other.org, new.id, &new.token_hash, &member, &audit()).await, Err(RepoError::NotFound)));
        assert_eq!(DieselMemberDirectory::new(db.clone()).role_of(other.org, eve).await.unwrap(), None);
        assert_eq!(s.invites.pending(s.org).await.unwrap(), vec![new]);
    }

    async fn accepting_checks_the_token_and_the_expiry_inside_the_write(db) {
        let s = setup(db).await;
        let eve = fixtures::account(db, "eve@example.com");
        let new = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&new, &mail("eve@example.com", "l"), &audit()).await.unwrap();
        // Resent meanwhile: the old link no longer names the invitation.
        s.invites.resend(s.org, &email("eve@example.com"), 1, "h2", at(0) + Duration::days(7), at(1), &mail("eve@example.com", "l2"), &audit()).await.unwrap();
        let stale = s.invites.accept(s.org, new.id, "h1", &joining(eve, "eve@example.com", OrgRole::Member, 2), &audit()).await;
        assert!(matches!(stale, Err(RepoError::NotFound)), "{stale:?}");
        // Expired at the moment of joining (the resend kept the first expiry here).
        let late = joining(eve, "eve@example.com", OrgRole::Member, 0) ;
        let late = Member { joined_at: at(0) + Duration::days(7), ..late };
        let expired = s.invites.accept(s.org, new.id, "h2", &late, &audit()).await;
        assert!(matches!(&expired, Err(RepoError::Conflict(c)) if c == "invite_expired"), "{expired:?}");
        assert_eq!(DieselMemberDirectory::new(db.clone()).role_of(s.org, eve).await.unwrap(), None);
        // The current token, in time, joins.
        s.invites.accept(s.org, new.id, "h2", &joining(eve, "eve@example.com", OrgRole::Member, 3), &audit()).await.unwrap();
        assert_eq!(DieselMemberDirectory::new(db.clone()).role_of(s.org, eve).await.unwrap(), Some(OrgRole::Member));
    }

    async fn two_concurrent_accepts_of_one_invitation_add_one_member(db) {
        let s = setup(db).await;
        let new = invite(s.org, s.admin, "eve@example.com", "h1", 0);
        s.invites.create(&new, &mail("eve@example.com", "l"), &audit()).await.unwrap();
        let eve = fixtures::account(db, "eve@example.com");
        let mallory = fixtures::account(db, "mallory@example.com");
        let (first, second) = (s.invites.clone(), s.invites.clone());
        let org = s.org;
        let (id, hash) = (new.id, new.token_hash.clone());
        let a = tokio::spawn(async move { first.accept(org, id, "h1", &joining(eve, "eve@example.com", OrgRole::Member, 1), &audit()).await });
        let b = tokio::spawn(async move { second.accept(org, id, &hash, &joining(mallory, "mallory@example.com", OrgRole::Member, 1), &audit()).await });
        let results = [a.await.unwrap(), b.await.unwrap()];
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1, "{results:?}");
        assert!(results.iter().any(|r| matches!(r, Err(RepoError::Conflict(c)) if c == "invite_closed")));
        assert_eq!(s.orgs.members(s.org).await.unwrap().len(), 2);
    }

    async fn accepting_while_the_organization_is_deleted_never_deadlocks(db) {
        for round in 0..5 {
            let s = setup(db).await;
            let address = format!("joiner{round}@example.com");
            let new = invite(s.org, s.admin, &address, &format!("race-{round}"), 0);
            s.invites.create(&new, &mail(&address, "l"), &audit()).await.unwrap();
            let joiner = fixtures::account(db, &address);
            let (invites, orgs, org) = (s.invites.clone(), s.orgs.clone(), s.org);
            let member = joining(joiner, &address, OrgRole::Member, 1);
            let accept = tokio::spawn(async move { invites.accept(org, new.id, &new.token_hash, &member, &audit()).await });
            let delete = tokio::spawn(async move { orgs.delete(org, &fixtures::audit()).await });
            let (accepted, deleted) = (accept.await.unwrap(), delete.await.unwrap());
            assert!(deleted.is_ok(), "round {round}: {deleted:?}");
            assert!(
                accepted.is_ok() || matches!(accepted, Err(RepoError::NotFound)),
                "round {round}: {accepted:?}"
            );
            assert!(s.orgs.get(org).await.unwrap().is_none());
        }
    }
}
