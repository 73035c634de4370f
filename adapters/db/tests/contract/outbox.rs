//! `OutboxRepository` and `enqueue_emails`: queueing, leased claims, delivery outcomes.

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::{at, email};
use adapter_db::Db;
use adapter_db::repos::{DieselOutboxRepository, enqueue_emails};
use adapter_db::schema::email_outbox;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use domain::common::RepoError;
use domain::mail::{EmailKind, OutboxEntry, OutboxRepository, OutgoingEmail};
use std::collections::HashSet;
use uuid::Uuid;

fn mail(to: &str, subject: &str) -> OutgoingEmail {
    OutgoingEmail {
        kind: EmailKind::AppApproved,
        to: email(to),
        subject: subject.to_owned(),
        text: format!("Body of {subject}"),
        link: None,
    }
}

async fn enqueue(db: &Db, emails: Vec<OutgoingEmail>, now: DateTime<Utc>) {
    db.write(move |conn| enqueue_emails(conn, &emails, now))
        .await
        .unwrap();
}

/// (attempts, next_attempt_at, lease_until, sent_at, failed_at, last_error) of one row.
type State = (i32, i64, Option<i64>, Option<i64>, Option<i64>, Option<String>);

fn state(db: &Db, id: Uuid) -> State {
    let mut conn = db.connection().unwrap();
    email_outbox::table
        .find(id.to_string())
        .select((
            email_outbox::attempts,
            email_outbox::next_attempt_at,
            email_outbox::lease_until,
            email_outbox::sent_at,
            email_outbox::failed_at,
            email_outbox::last_error,
        ))
        .first(&mut *conn)
        .unwrap()
}

fn subjects(entries: &[OutboxEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.email.subject.as_str()).collect()
}

contract! {
    async fn an_enqueued_email_is_claimed_with_everything_it_carries(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        let email = OutgoingEmail {
            kind: EmailKind::OrgInvite,
            to: email("eve@example.com"),
            subject: "Join Acme".into(),
            text: "Follow the link.".into(),
            link: Some("https://p/invite/accept?token=t".into()),
        };
        enqueue(db, vec![email.clone()], at(0)).await;
        let claimed = outbox.claim_due(at(0), 10, at(5)).await.unwrap();
        assert_eq!(claimed.len(), 1);
        assert_eq!(claimed[0].email, email);
        assert_eq!(claimed[0].attempts, 0);
        assert_eq!(claimed[0].next_attempt_at, at(0));
        assert_eq!(claimed[0].created_at, at(0));
        let (_, next, lease, sent, failed, _) = state(db, claimed[0].id);
        assert_eq!((next, lease), (at(5).timestamp_millis(), Some(at(5).timestamp_millis())));
        assert_eq!((sent, failed), (None, None));
    }

    async fn a_released_claim_is_due_again_at_once_and_a_sent_one_stays_sent(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        enqueue(db, vec![mail("a@example.com", "A"), mail("b@example.com", "B")], at(0)).await;
        let claimed = outbox.claim_due(at(1), 10, at(300)).await.unwrap();
        assert_eq!(claimed.len(), 2);
        assert!(outbox.claim_due(at(2), 10, at(300)).await.unwrap().is_empty(), "leased");
        outbox.mark_sent(claimed[0].id, at(2)).await.unwrap();
        for entry in &claimed {
            outbox.release(entry.id, entry.next_attempt_at).await.unwrap();
        }
        let (_, next, lease, sent, _, _) = state(db, claimed[1].id);
        assert_eq!((next, lease, sent), (at(0).timestamp_millis(), None, None));
        assert!(state(db, claimed[0].id).3.is_some(), "a sent e-mail is not given back");
        let again = outbox.claim_due(at(3), 10, at(300)).await.unwrap();
        assert_eq!(again.iter().map(|e| e.id).collect::<Vec<_>>(), vec![claimed[1].id]);
    }

    async fn every_email_kind_round_trips(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        let kinds = [
            EmailKind::ConfirmSignup,
            EmailKind::MagicLink,
            EmailKind::PasswordRecovery,
            EmailKind::OrgInvite,
            EmailKind::AppApproved,
            EmailKind::AppRejected,
            EmailKind::AppOffline,
        ];
        let emails: Vec<OutgoingEmail> = kinds
            .iter()
            .enumerate()
            .map(|(i, kind)| OutgoingEmail { kind: *kind, ..mail("a@example.com", &format!("s{i}")) })
            .collect();
        enqueue(db, emails, at(0)).await;
        let claimed = outbox.claim_due(at(0), 50, at(5)).await.unwrap();
        let mut seen: Vec<&str> = claimed.iter().map(|e| e.email.kind.code()).collect();
        seen.sort_unstable();
        let mut expected: Vec<&str> = kinds.iter().map(|k| k.code()).collect();
        expected.sort_unstable();
        assert_eq!(seen, expected);
    }

    async fn claims_take_the_oldest_due_first_up_to_the_limit(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        enqueue(db, vec![mail("a@example.com", "third")], at(3)).await;
        enqueue(db, vec![mail("a@example.com", "first")], at(1)).await;
        enqueue(db, vec![mail("a@example.com", "second")], at(2)).await;
        enqueue(db, vec![mail("a@example.com", "future")], at(10)).await;

        let claimed = outbox.claim_due(at(5), 2, at(6)).await.unwrap();
        assert_eq!(subjects(&claimed), vec!["first", "second"]);
        let rest = outbox.claim_due(at(5), 10, at(6)).await.unwrap();
        assert_eq!(subjects(&rest), vec!["third"], "entries due later are not claimed");
        assert!(outbox.claim_due(at(5), 0, at(6)).await.unwrap().is_empty());
    }

    async fn a_leased_entry_is_not_claimed_again_until_its_lease_ends(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        enqueue(db, vec![mail("a@example.com", "one")], at(0)).await;
        let first = outbox.claim_due(at(0), 10, at(5)).await.unwrap();
        assert_eq!(first.len(), 1);
        assert!(outbox.claim_due(at(1), 10, at(6)).await.unwrap().is_empty());
        assert!(outbox.claim_due(at(4), 10, at(9)).await.unwrap().is_empty());

        let again = outbox.claim_due(at(5), 10, at(10)).await.unwrap();
        assert_eq!(again.len(), 1, "a dead worker's entry becomes due when the lease ends");
        assert_eq!(again[0].id, first[0].id);
        assert_eq!(again[0].next_attempt_at, at(5));
    }

    async fn a_sent_entry_is_never_claimed_again(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        enqueue(db, vec![mail("a@example.com", "one")], at(0)).await;
        let id = outbox.claim_due(at(0), 10, at(5)).await.unwrap()[0].id;
        outbox.mark_sent(id, at(1)).await.unwrap();
        let (attempts, _, lease, sent, failed, _) = state(db, id);
        assert_eq!((attempts, lease, sent, failed), (0, None, Some(at(1).timestamp_millis()), None));
        assert!(outbox.claim_due(at(100), 10, at(105)).await.unwrap().is_empty());
    }

    async fn a_delivered_or_abandoned_entry_keeps_no_link_or_code(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        let secret = |subject: &str| OutgoingEmail {
            link: Some(format!("https://portal.test/invite/accept?token=secret-{subject}")),
            text: format!("Accept: https://portal.test/invite/accept?token=secret-{subject} code 123456"),
            ..mail("a@example.com", subject)
        };
        enqueue(db, vec![secret("sent"), secret("failed")], at(0)).await;
        let claimed = outbox.claim_due(at(0), 10, at(5)).await.unwrap();
        let id_of = |subject: &str| claimed.iter().find(|e| e.email.subject == subject).unwrap().id;
        outbox.mark_sent(id_of("sent"), at(1)).await.unwrap();
        outbox.give_up(id_of("failed"), 10, "mailbox unavailable", at(1)).await.unwrap();
        let mut conn = db.connection().unwrap();
        let rows: Vec<(String, Option<String>)> = email_outbox::table
            .select((email_outbox::body, email_outbox::link))
            .load(&mut *conn)
            .unwrap();
        assert_eq!(rows.len(), 2);
        for (body, link) in rows {
            assert!(link.is_none());
            assert!(!body.contains("secret") && !body.contains("123456"), "{body}");
        }
    }

    async fn a_failed_attempt_is_retried_at_its_next_time(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        enqueue(db, vec![mail("a@example.com", "one")], at(0)).await;
        let id = outbox.claim_due(at(0), 10, at(5)).await.unwrap()[0].id;
        outbox.mark_failed(id, 1, at(2), "connection refused").await.unwrap();
        assert_eq!(
            state(db, id),
            (1, at(2).timestamp_millis(), None, None, None, Some("connection refused".to_owned()))
        );
        assert!(outbox.claim_due(at(1), 10, at(6)).await.unwrap().is_empty());
        let retried = outbox.claim_due(at(2), 10, at(7)).await.unwrap();
        assert_eq!(retried.len(), 1, "the lease was cleared: due at the retry time");
        assert_eq!(retried[0].attempts, 1);
        assert_eq!(retried[0].next_attempt_at, at(2));
    }

    async fn a_given_up_entry_keeps_its_count_and_error_and_is_never_claimed(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        enqueue(db, vec![mail("a@example.com", "one")], at(0)).await;
        let id = outbox.claim_due(at(0), 10, at(5)).await.unwrap()[0].id;
        outbox.give_up(id, 10, "550 no such mailbox", at(3)).await.unwrap();
        let (attempts, _, lease, sent, failed, error) = state(db, id);
        assert_eq!(attempts, 10);
        assert_eq!((lease, sent, failed), (None, None, Some(at(3).timestamp_millis())));
        assert_eq!(error.as_deref(), Some("550 no such mailbox"));
        assert!(outbox.claim_due(at(1000), 10, at(1005)).await.unwrap().is_empty());
    }

    async fn recording_an_outcome_of_an_unknown_entry_is_not_found(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        let id = Uuid::new_v4();
        assert!(matches!(outbox.mark_sent(id, at(0)).await, Err(RepoError::NotFound)));
        assert!(matches!(outbox.mark_failed(id, 1, at(1), "x").await, Err(RepoError::NotFound)));
        assert!(matches!(outbox.give_up(id, 1, "x", at(1)).await, Err(RepoError::NotFound)));
    }

    async fn two_concurrent_claimers_never_get_the_same_entry(db) {
        let total = 40;
        let emails: Vec<OutgoingEmail> =
            (0..total).map(|i| mail("a@example.com", &format!("m{i:02}"))).collect();
        enqueue(db, emails, at(0)).await;
        for _ in 0..3 {
            let mut tasks = Vec::new();
            for _ in 0..2 {
                let outbox = DieselOutboxRepository::new(db.clone());
                tasks.push(tokio::spawn(async move { outbox.claim_due(at(0), 25, at(5)).await }));
            }
            let mut claims = Vec::new();
            for task in tasks {
                claims.push(task.await.unwrap().unwrap());
            }
            let first: HashSet<Uuid> = claims[0].iter().map(|e| e.id).collect();
            let second: HashSet<Uuid> = claims[1].iter().map(|e| e.id).collect();
            assert!(first.is_disjoint(&second), "no entry was claimed twice");
            assert_eq!(first.len() + second.len(), total, "both claimers together took every due entry");
            assert!(first.len() <= 25 && second.len() <= 25);
            // Release everything for the next round.
            let mut conn = db.connection().unwrap();
            diesel::update(email_outbox::table)
                .set((email_outbox::lease_until.eq(None::<i64>), email_outbox::next_attempt_at.eq(at(0).timestamp_millis())))
                .execute(&mut *conn)
                .unwrap();
        }
    }

    async fn enqueued_emails_roll_back_with_their_transaction(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        let emails = vec![mail("a@example.com", "one"), mail("b@example.com", "two")];
        let result: Result<(), RepoError> = db
            .write(move |conn| {
                enqueue_emails(conn, &emails, at(0))?;
                Err(RepoError::Conflict("the change failed".into()))
            })
            .await;
        assert!(result.is_err());
        assert!(outbox.claim_due(at(10), 10, at(15)).await.unwrap().is_empty());

        enqueue(db, vec![mail("a@example.com", "one"), mail("b@example.com", "two")], at(0)).await;
        let claimed = outbox.claim_due(at(0), 10, at(15)).await.unwrap();
        let mut recipients: Vec<&str> = claimed.iter().map(|e| e.email.to.as_str()).collect();
        recipients.sort_unstable();
        assert_eq!(recipients, vec!["a@example.com", "b@example.com"]);
        assert_ne!(claimed[0].id, claimed[1].id);
        assert!(claimed.iter().all(|e| e.attempts == 0 && e.next_attempt_at == at(0)));
    }

    async fn a_claim_skips_an_entry_changed_since_it_was_due(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        enqueue(db, vec![mail("a@example.com", "one")], at(0)).await;
        let id = outbox.claim_due(at(0), 10, at(5)).await.unwrap()[0].id;
        outbox.mark_failed(id, 1, at(0) + Duration::seconds(30), "timeout").await.unwrap();
        let claimed = outbox.claim_due(at(1), 10, at(6)).await.unwrap();
        assert_eq!(claimed.len(), 1);
        assert_eq!(claimed[0].attempts, 1, "the claim answers the entry as stored");
        assert!(outbox.claim_due(at(2), 10, at(7)).await.unwrap().is_empty());
    }
}

contract! {
    async fn the_backlog_counts_what_is_neither_sent_nor_given_up_and_finds_the_oldest(db) {
        let outbox = DieselOutboxRepository::new(db.clone());
        let empty = outbox.backlog().await.unwrap();
        assert_eq!((empty.pending, empty.oldest_created_at), (0, None));
        enqueue(db, vec![mail("a@example.com", "A")], at(0)).await;
        enqueue(db, vec![mail("b@example.com", "B"), mail("c@example.com", "C")], at(10)).await;
        let backlog = outbox.backlog().await.unwrap();
        assert_eq!((backlog.pending, backlog.oldest_created_at), (3, Some(at(0))));
        // A leased entry, and one waiting for its retry, still wait.
        let claimed = outbox.claim_due(at(20), 10, at(30)).await.unwrap();
        assert_eq!(claimed.len(), 3);
        let by_subject = |s: &str| claimed.iter().find(|e| e.email.subject == s).unwrap().id;
        outbox.mark_failed(by_subject("C"), 1, at(60), "try later").await.unwrap();
        assert_eq!(outbox.backlog().await.unwrap().pending, 3);
        outbox.mark_sent(by_subject("A"), at(21)).await.unwrap();
        let backlog = outbox.backlog().await.unwrap();
        assert_eq!((backlog.pending, backlog.oldest_created_at), (2, Some(at(10))));
        outbox.give_up(by_subject("B"), 1, "refused", at(22)).await.unwrap();
        outbox.mark_sent(by_subject("C"), at(23)).await.unwrap();
        let drained = outbox.backlog().await.unwrap();
        assert_eq!((drained.pending, drained.oldest_created_at), (0, None));
    }
}
