//! `WebhookRepository` and the events queued with a change (`webhooks::rows`): endpoints, the outbox of
//! deliveries, leased claims across instances taking turns across organizations, the bounds per endpoint
//! and per organization, the sends by hand and the queue bound decided in the write, attempts and disabling,
//! and the sealing of secrets stored in the clear.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::{account, at, audit_in, member, organization};
use adapter_db::Db;
use adapter_db::repos::webhooks::rows;
use adapter_db::repos::{DieselOrgRepository, DieselWebhookRepository};
use adapter_db::schema::{audit_log, email_outbox, webhook_deliveries};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::{AuditAction, AuditTarget};
use domain::common::{OrgId, RepoError};
use domain::mail::{EmailKind, OutgoingEmail};
use domain::orgs::{OrgRepository, OrgRole};
use domain::webhooks::DeliveryCursor;
use domain::webhooks::payload::test_event;
use domain::webhooks::ports::AttemptRecord;
use domain::webhooks::{
    Admission, DeliveryStatus, DisabledReason, EventFilter, LimitScope, SealedSecret, SecretSlot, SendLimits,
    WebhookEndpoint, WebhookEndpointId, WebhookEventType, WebhookRepository,
};
use std::collections::HashSet;

/// A stored (sealed) secret: the repository keeps and answers the text as it is.
pub(crate) fn secret(byte: u8) -> SealedSecret {
    SealedSecret::stored(format!("v1:{}", hex_of(byte)))
}

fn hex_of(byte: u8) -> String {
    format!("{byte:02x}").repeat(40)
}

/// No bound on sends by hand (the tests that are not about them queue many).
fn unlimited() -> SendLimits {
    SendLimits {
        per_endpoint: u32::MAX,
        per_org: u32::MAX,
        max_pending: u32::MAX,
        ..SendLimits::default()
    }
}

pub(crate) fn endpoint(org: OrgId, events: &[WebhookEventType]) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookEndpointId(uuid::Uuid::new_v4()),
        org_id: org,
        url: "https://hooks.example.com/in".into(),
        description: "CI".into(),
        events: EventFilter::from_list(events),
        enabled: true,
        disabled_reason: None,
        created_at: at(0),
        updated_at: at(0),
        failing_since: None,
        last_attempt_at: None,
        last_attempt_ok: None,
        previous_secret_until: None,
    }
}

async fn add(db: &Db, org: OrgId, events: &[WebhookEventType]) -> WebhookEndpoint {
    let repo = DieselWebhookRepository::new(db.clone());
    let endpoint = endpoint(org, events);
    repo.create_endpoint(
        &endpoint,
        &secret(0),
        &audit_in(Some(org), AuditAction::OrgUpdated, at(0)),
    )
    .await
    .unwrap();
    endpoint
}

fn deliveries(db: &Db) -> Vec<(String, String, String)> {
    let mut conn = db.connection().unwrap();
    webhook_deliveries::table
        .order(webhook_deliveries::event_type)
        .select((
            webhook_deliveries::endpoint_id,
            webhook_deliveries::event_type,
            webhook_deliveries::status,
        ))
        .load(&mut *conn)
        .unwrap()
}

async fn queue_tests(db: &Db, endpoint: &WebhookEndpoint, count: usize, now: DateTime<Utc>) -> Vec<String> {
    let repo = DieselWebhookRepository::new(db.clone());
    let mut ids = Vec::new();
    for n in 0..count {
        let id = format!("msg_{}_{n}", endpoint.id.0.simple());
        let admission = repo
            .enqueue_for(
                endpoint.id,
                &test_event(endpoint.org_id, endpoint.id, now),
                &id,
                unlimited(),
            )
            .await
            .unwrap();
        assert_eq!(admission, Admission::Queued);
        ids.push(id);
    }
    ids
}

fn attempt(
    delivery: &str,
    endpoint: &WebhookEndpoint,
    delivered: bool,
    next: Option<DateTime<Utc>>,
) -> AttemptRecord {
    AttemptRecord {
        delivery_id: delivery.to_owned(),
        endpoint_id: endpoint.id,
        org_id: endpoint.org_id,
        at: at(1),
        attempts: 1,
        delivered,
        next_attempt_at: next,
        status: Some(if delivered { 200 } else { 500 }),
        duration_ms: Some(12),
        response: Some("ok".into()),
        error: None,
        failing_since: if delivered { None } else { Some(at(1)) },
        disable: None,
    }
}

contract! {
    async fn an_endpoint_is_stored_listed_and_rotated(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let org = organization(db, "Acme");
        let other = organization(db, "Other");
        let created = add(db, org, &[WebhookEventType::AppApproved]).await;
        assert_eq!(repo.list_endpoints(org).await.unwrap(), vec![created.clone()]);
        assert!(repo.list_endpoints(other).await.unwrap().is_empty());
        assert_eq!(repo.find_endpoint(other, created.id).await.unwrap(), None);
        let mut changed = created.clone();
        changed.description = "Chat".into();
        changed.events = EventFilter::All;
        repo.update_endpoint(&changed, &audit_in(Some(org), AuditAction::OrgUpdated, at(1))).await.unwrap();
        assert_eq!(repo.find_endpoint(org, created.id).await.unwrap(), Some(changed.clone()));
        let mut elsewhere = changed.clone();
        elsewhere.org_id = other;
        assert!(matches!(
            repo.update_endpoint(&elsewhere, &audit_in(Some(other), AuditAction::OrgUpdated, at(1))).await,
            Err(RepoError::NotFound)
        ));
        repo.rotate_secret(org, created.id, &secret(1), at(60), &audit_in(Some(org), AuditAction::OrgUpdated, at(2)))
            .await
            .unwrap();
        queue_tests(db, &created, 1, at(2)).await;
        let claimed = repo.claim_due(at(3), 10, 10, 100, at(4)).await.unwrap();
        assert_eq!(claimed.len(), 1);
        assert_eq!(claimed[0].secrets.current, secret(1));
        assert_eq!(claimed[0].secrets.previous, Some((secret(0), at(60))));
        repo.delete_endpoint(org, created.id, &audit_in(Some(org), AuditAction::OrgUpdated, at(5))).await.unwrap();
        assert!(repo.list_endpoints(org).await.unwrap().is_empty());
        assert!(deliveries(db).is_empty());
        assert!(matches!(
            repo.delete_endpoint(org, created.id, &audit_in(Some(org), AuditAction::OrgUpdated, at(5))).await,
            Err(RepoError::NotFound)
        ));
    }

    async fn a_change_queues_its_events_for_the_endpoints_that_want_them(db) {
        let org = organization(db, "Acme");
        let admin = account(db, "ada@example.com");
        let bob = account(db, "bob@example.com");
        member(db, org, admin, "admin", at(0));
        member(db, org, bob, "member", at(0));
        let wants_roles = add(db, org, &[WebhookEventType::MemberRoleChanged]).await;
        let wants_all = add(db, org, &[]).await;
        let wants_apps = add(db, org, &[WebhookEventType::AppApproved]).await;
        let mut disabled = add(db, org, &[]).await;
        disabled.enabled = false;
        disabled.disabled_reason = Some(DisabledReason::Manual);
        DieselWebhookRepository::new(db.clone())
            .update_endpoint(&disabled, &audit_in(Some(org), AuditAction::OrgUpdated, at(0)))
            .await
            .unwrap();
        let other = organization(db, "Other");
        add(db, other, &[]).await;

        let audit = audit_in(Some(org), AuditAction::MemberRoleChanged, at(1))
            .on(AuditTarget::member(bob).with_label("bob@example.com"))
            .change("role", "member", "admin");
        DieselOrgRepository::new(db.clone()).set_role(org, bob, OrgRole::Admin, &audit).await.unwrap();

        let queued = deliveries(db);
        let to: HashSet<String> = queued.iter().map(|row| row.0.clone()).collect();
        assert_eq!(queued.len(), 2, "{queued:?}");
        assert_eq!(to, HashSet::from([wants_roles.id.to_string(), wants_all.id.to_string()]));
        assert!(queued.iter().all(|row| row.1 == "member.role_changed" && row.2 == "PENDING"));
        assert!(!to.contains(&wants_apps.id.to_string()));
    }

    async fn a_rolled_back_change_queues_nothing(db) {
        let org = organization(db, "Acme");
        add(db, org, &[]).await;
        let event = test_event(org, WebhookEndpointId(uuid::Uuid::nil()), at(0));
        let result: Result<(), RepoError> = db
            .write(move |conn| {
                rows::enqueue(conn, std::slice::from_ref(&event), at(0))?;
                Err(RepoError::Conflict("the change failed".into()))
            })
            .await;
        assert!(result.is_err());
        assert!(deliveries(db).is_empty());
        let event = test_event(org, WebhookEndpointId(uuid::Uuid::nil()), at(0));
        db.write(move |conn| rows::enqueue(conn, std::slice::from_ref(&event), at(0))).await.unwrap();
        assert_eq!(deliveries(db).len(), 1);
    }

    async fn a_slow_endpoint_holds_at_most_its_bound_of_claims(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let org = organization(db, "Acme");
        let slow = add(db, org, &[]).await;
        let quick = add(db, other_org(db), &[]).await;
        queue_tests(db, &slow, 5, at(0)).await;
        queue_tests(db, &quick, 1, at(0)).await;
        let first = repo.claim_due(at(1), 10, 2, 100, at(3)).await.unwrap();
        let per = |claims: &[domain::webhooks::ClaimedDelivery], e: &WebhookEndpoint| {
            claims.iter().filter(|c| c.delivery.endpoint_id == e.id).count()
        };
        assert_eq!((per(&first, &slow), per(&first, &quick)), (2, 1));
        // While those leases last, the slow endpoint gets no more.
        assert!(repo.claim_due(at(2), 10, 2, 100, at(4)).await.unwrap().is_empty());
        // Once one is recorded, it gets one more.
        let done = first.iter().find(|c| c.delivery.endpoint_id == slow.id).unwrap();
        repo.record_attempt(&attempt(&done.delivery.id, &slow, true, None)).await.unwrap();
        let again = repo.claim_due(at(2), 10, 2, 100, at(4)).await.unwrap();
        assert_eq!((per(&again, &slow), again.len()), (1, 1));
    }

    async fn claims_take_turns_across_organizations_oldest_first_within_each(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let busy = organization(db, "Busy");
        let mut hooks = Vec::new();
        for _ in 0..8 {
            let hook = add(db, busy, &[]).await;
            queue_tests(db, &hook, 8, at(0)).await;
            hooks.push(hook);
        }
        let quiet = add(db, other_org(db), &[]).await;
        let late = queue_tests(db, &quiet, 1, at(1)).await;
        // Two free slots: the other organization's one delivery, queued last, is among them.
        let claimed = repo.claim_due(at(2), 2, 4, 100, at(3)).await.unwrap();
        assert_eq!(claimed.len(), 2);
        assert!(claimed.iter().any(|c| c.delivery.id == late[0]), "the quiet organization waits its turn");
    }

    async fn an_organization_whose_endpoints_hang_holds_at_most_its_share_and_another_is_claimed(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let busy = organization(db, "Busy");
        let mut hooks = Vec::new();
        for _ in 0..8 {
            let hook = add(db, busy, &[]).await;
            queue_tests(db, &hook, 8, at(0)).await;
            hooks.push(hook);
        }
        let of = |claims: &[domain::webhooks::ClaimedDelivery], org: OrgId| {
            claims.iter().filter(|c| c.delivery.event.org_id == org).count()
        };
        // 32 free slots, 4 per endpoint, 8 per organization: the busy organization gets 8, not 32.
        let first = repo.claim_due(at(1), 32, 4, 8, at(5)).await.unwrap();
        assert_eq!(of(&first, busy), 8);
        // Its attempts hang (their leases stay alive): it gets no more, and another organization's test,
        // queued after all of them, is claimed at once.
        let quiet_org = other_org(db);
        let quiet = add(db, quiet_org, &[]).await;
        let late = queue_tests(db, &quiet, 1, at(2)).await;
        let second = repo.claim_due(at(2), 24, 4, 8, at(6)).await.unwrap();
        assert_eq!(of(&second, busy), 0);
        assert_eq!(second.iter().map(|c| c.delivery.id.clone()).collect::<Vec<_>>(), late);
        // Once one of its attempts is recorded, the busy organization gets one more.
        let done = &first[0];
        let hook = hooks.iter().find(|h| h.id == done.delivery.endpoint_id).unwrap();
        repo.record_attempt(&attempt(&done.delivery.id, hook, true, None)).await.unwrap();
        let third = repo.claim_due(at(3), 24, 4, 8, at(7)).await.unwrap();
        assert_eq!(of(&third, busy), 1);
    }

    async fn an_endpoint_s_queue_is_bounded_in_the_write_that_queues(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let org = organization(db, "Acme");
        let hook = add(db, org, &[]).await;
        let bounded = SendLimits { max_pending: 3, ..unlimited() };
        let send = |n: usize| {
            let repo = repo.clone();
            let event = test_event(org, hook.id, at(0));
            async move { repo.enqueue_for(hook.id, &event, &format!("msg_{n}"), bounded).await.unwrap() }
        };
        for n in 0..3 {
            assert_eq!(send(n).await, Admission::Queued);
        }
        assert_eq!(send(3).await, Admission::Backlog);
        assert_eq!(deliveries(db).len(), 3, "nothing is written for a refused test");
        // One of them delivered: room for one more.
        repo.claim_due(at(1), 1, 5, 100, at(2)).await.unwrap();
        repo.record_attempt(&attempt("msg_0", &hook, true, None)).await.unwrap();
        assert_eq!(send(4).await, Admission::Queued);
        // Retrying a finished delivery adds one to the queue; it is refused while the queue is full.
        assert_eq!(repo.retry_delivery(org, hook.id, "msg_0", at(2), bounded).await.unwrap(), Admission::Backlog);
        let pending = |db: &Db| {
            deliveries(db).iter().filter(|d| d.2 == DeliveryStatus::Pending.code()).count()
        };
        assert_eq!(pending(db), 3);
        // Retrying one that waits already does not add to it.
        assert_eq!(repo.retry_delivery(org, hook.id, "msg_1", at(2), bounded).await.unwrap(), Admission::Queued);
    }

    async fn an_event_for_an_endpoint_with_a_full_queue_is_recorded_as_not_sent(db) {
        let org = organization(db, "Acme");
        let hook = add(db, org, &[]).await;
        let events: Vec<_> = (0..domain::webhooks::MAX_PENDING_PER_ENDPOINT)
            .map(|_| test_event(org, hook.id, at(0)))
            .collect();
        db.write(move |conn| rows::enqueue(conn, &events, at(0))).await.unwrap();
        let one_more = test_event(org, hook.id, at(1));
        // The change it rides with still commits.
        db.write(move |conn| rows::enqueue(conn, std::slice::from_ref(&one_more), at(1))).await.unwrap();
        let mut conn = db.connection().unwrap();
        let counted: Vec<(String, Option<String>)> = webhook_deliveries::table
            .select((webhook_deliveries::status, webhook_deliveries::last_error))
            .load(&mut *conn)
            .unwrap();
        let pending = counted.iter().filter(|(s, _)| s == "PENDING").count();
        let not_sent: Vec<_> = counted.iter().filter(|(s, _)| s == "FAILED").collect();
        assert_eq!(pending, domain::webhooks::MAX_PENDING_PER_ENDPOINT as usize);
        assert_eq!(not_sent.len(), 1);
        assert_eq!(
            not_sent[0].1.as_deref(),
            Some("not sent: the endpoint had 1000 deliveries waiting")
        );
    }

    async fn sends_by_hand_are_bounded_per_endpoint_and_per_organization_within_the_window(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let org = organization(db, "Acme");
        let (one, two) = (add(db, org, &[]).await, add(db, org, &[]).await);
        let limits = SendLimits { per_endpoint: 2, per_org: 3, ..SendLimits::default() };
        let test = |hook: &WebhookEndpoint, n: u32, when: i64| {
            let (repo, id) = (repo.clone(), hook.id);
            let event = test_event(org, id, at(when));
            async move { repo.enqueue_for(id, &event, &format!("msg_{id}_{n}"), limits).await.unwrap() }
        };
        assert_eq!(test(&one, 0, 0).await, Admission::Queued);
        assert_eq!(test(&one, 1, 0).await, Admission::Queued);
        assert_eq!(
            test(&one, 2, 0).await,
            Admission::Limited { scope: LimitScope::Endpoint, retry_at: at(1) }
        );
        assert_eq!(test(&two, 0, 0).await, Admission::Queued);
        // A retry by hand counts as a send of the organization's.
        let retried = repo.retry_delivery(org, two.id, &format!("msg_{}_0", two.id), at(0), limits).await;
        assert_eq!(
            retried.unwrap(),
            Admission::Limited { scope: LimitScope::Organization, retry_at: at(1) }
        );
        assert_eq!(deliveries(db).len(), 3, "a refused test queues nothing");
        // Once the window has passed, each may send again.
        assert_eq!(test(&one, 3, 1).await, Admission::Queued);
        assert_eq!(test(&two, 1, 1).await, Admission::Queued);
    }

    async fn a_burst_of_fifty_tests_at_once_queues_only_what_the_bounds_allow(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let org = organization(db, "Acme");
        let hook = add(db, org, &[]).await;
        let limits = SendLimits { per_endpoint: 5, per_org: 20, ..SendLimits::default() };
        let burst = (0..50).map(|n| {
            let repo = repo.clone();
            let event = test_event(org, hook.id, at(0));
            tokio::spawn(async move { repo.enqueue_for(hook.id, &event, &format!("msg_{n}"), limits).await })
        });
        let answers: Vec<Admission> = futures::future::join_all(burst)
            .await
            .into_iter()
            .map(|joined| joined.unwrap().unwrap())
            .collect();
        assert_eq!(answers.iter().filter(|a| **a == Admission::Queued).count(), 5);
        assert_eq!(deliveries(db).len(), 5);
    }

    async fn secrets_stored_in_the_clear_are_found_and_replaced_only_while_unchanged(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let org = organization(db, "Acme");
        let endpoint = endpoint(org, &[]);
        let plain = SealedSecret::stored(format!("whsec_{}", "QUJD".repeat(8)));
        repo.create_endpoint(&endpoint, &plain, &audit_in(Some(org), AuditAction::OrgUpdated, at(0)))
            .await
            .unwrap();
        let sealed_too = add(db, org, &[]).await;
        repo.rotate_secret(org, sealed_too.id, &secret(2), at(60), &audit_in(Some(org), AuditAction::OrgUpdated, at(0)))
            .await
            .unwrap();
        assert_eq!(
            repo.plain_secrets(10).await.unwrap(),
            vec![(endpoint.id, SecretSlot::Current, plain.clone())]
        );
        assert!(!repo.reseal_secret(endpoint.id, SecretSlot::Current, &secret(7), &secret(3)).await.unwrap());
        assert!(repo.reseal_secret(endpoint.id, SecretSlot::Current, &plain, &secret(3)).await.unwrap());
        assert!(repo.plain_secrets(10).await.unwrap().is_empty());
        queue_tests(db, &endpoint, 1, at(1)).await;
        let claimed = repo.claim_due(at(1), 10, 10, 100, at(2)).await.unwrap();
        assert_eq!(claimed[0].secrets.current, secret(3));
    }

    async fn attempts_are_recorded_retried_and_paged(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let org = organization(db, "Acme");
        let hook = add(db, org, &[]).await;
        let ids = queue_tests(db, &hook, 3, at(0)).await;
        let claimed = repo.claim_due(at(0), 1, 5, 100, at(1)).await.unwrap();
        let id = claimed[0].delivery.id.clone();
        assert_eq!(claimed[0].delivery.attempts, 0);
        repo.record_attempt(&attempt(&id, &hook, false, Some(at(10)))).await.unwrap();
        let found = repo.find_endpoint(org, hook.id).await.unwrap().unwrap();
        assert_eq!((found.failing_since, found.last_attempt_ok), (Some(at(1)), Some(false)));
        let page = repo.list_deliveries(org, hook.id, None, 2).await.unwrap();
        assert_eq!(page.len(), 2);
        let rest = repo
            .list_deliveries(org, hook.id, Some(DeliveryCursor::after(&page[1])), 2)
            .await
            .unwrap();
        let seen: HashSet<String> = page.iter().chain(&rest).map(|d| d.id.clone()).collect();
        assert_eq!(seen, ids.iter().cloned().collect());
        let failed = page.iter().chain(&rest).find(|d| d.id == id).unwrap();
        assert_eq!(
            (failed.status, failed.attempts, failed.last_status, failed.next_attempt_at),
            (DeliveryStatus::Pending, 1, Some(500), Some(at(10)))
        );
        assert_eq!(failed.event.event_type, WebhookEventType::Test);
        // Retried by hand: due at once.
        assert_eq!(repo.retry_delivery(org, hook.id, &id, at(2), unlimited()).await.unwrap(), Admission::Queued);
        let claims = repo.claim_due(at(2), 10, 10, 100, at(3)).await.unwrap();
        assert!(claims.iter().any(|c| c.delivery.id == id));
        assert!(matches!(repo.retry_delivery(org, hook.id, &id, at(2), unlimited()).await, Err(RepoError::Conflict(_))));
        assert!(matches!(
            repo.retry_delivery(org, hook.id, "msg_missing", at(2), unlimited()).await,
            Err(RepoError::NotFound)
        ));
    }

    async fn finished_deliveries_go_after_their_time_and_pending_ones_stay(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let org = organization(db, "Acme");
        let hook = add(db, org, &[]).await;
        // Four queued at minute 0: one delivered and one given up at minute 1, one still pending, one
        // delivered at minute 60 (a retry by hand); one queued and delivered at minute 100.
        let old = queue_tests(db, &hook, 4, at(0)).await;
        let recent = format!("msg_{}_recent", hook.id.0.simple());
        repo.enqueue_for(hook.id, &test_event(org, hook.id, at(100)), &recent, unlimited()).await.unwrap();
        repo.claim_due(at(100), 10, 10, 100, at(101)).await.unwrap();
        for (id, delivered, when) in [(&old[0], true, 1), (&old[1], false, 1), (&old[3], true, 60), (&recent, true, 100)] {
            let mut done = attempt(id, &hook, delivered, None);
            done.at = at(when);
            repo.record_attempt(&done).await.unwrap();
        }
        assert_eq!(repo.prune_finished_before(at(50)).await.unwrap(), 2);
        let left: HashSet<String> = repo
            .list_deliveries(org, hook.id, None, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|d| d.id)
            .collect();
        assert_eq!(left, HashSet::from([old[2].clone(), old[3].clone(), recent]));
        // Nothing else is old enough.
        assert_eq!(repo.prune_finished_before(at(50)).await.unwrap(), 0);
    }

    async fn disabling_writes_one_entry_one_email_and_gives_up_the_queue(db) {
        let repo = DieselWebhookRepository::new(db.clone());
        let org = organization(db, "Acme");
        let admin = account(db, "ada@example.com");
        member(db, org, admin, "admin", at(0));
        assert_eq!(repo.admin_emails(org).await.unwrap()[0].as_str(), "ada@example.com");
        let hook = add(db, org, &[]).await;
        let ids = queue_tests(db, &hook, 2, at(0)).await;
        let claimed = repo.claim_due(at(0), 1, 5, 100, at(1)).await.unwrap();
        let mut record = attempt(&claimed[0].delivery.id, &hook, false, None);
        record.status = Some(410);
        let email = OutgoingEmail {
            kind: EmailKind::SecurityNotice,
            to: domain::common::EmailAddress::parse("ada@example.com").unwrap(),
            subject: "Webhook disabled".into(),
            text: "It answered 410.".into(),
            link: None,
        };
        record.disable = Some((DisabledReason::Gone, audit_in(Some(org), AuditAction::OrgUpdated, at(1)), vec![email]));
        repo.record_attempt(&record).await.unwrap();
        record.disable = Some((DisabledReason::Gone, audit_in(Some(org), AuditAction::OrgUpdated, at(1)), Vec::new()));
        repo.record_attempt(&record).await.unwrap();
        let found = repo.find_endpoint(org, hook.id).await.unwrap().unwrap();
        assert_eq!((found.enabled, found.disabled_reason), (false, Some(DisabledReason::Gone)));
        let mut conn = db.connection().unwrap();
        let entries: i64 = audit_log::table.count().get_result(&mut *conn).unwrap();
        let emails: i64 = email_outbox::table.count().get_result(&mut *conn).unwrap();
        drop(conn);
        // One entry for the creation, one for the disabling; one e-mail.
        assert_eq!((entries, emails), (2, 1));
        assert!(repo.claim_due(at(2), 10, 10, 100, at(3)).await.unwrap().is_empty());
        let rest = repo.list_deliveries(org, hook.id, None, 10).await.unwrap();
        let other = rest.iter().find(|d| d.id != claimed[0].delivery.id).unwrap();
        assert!(ids.contains(&other.id));
        assert_eq!(other.status, DeliveryStatus::Failed);
        assert_eq!(repo.backlog().await.unwrap().pending, 0);
    }
}

fn other_org(db: &Db) -> OrgId {
    organization(db, "Quick")
}

shared_contract! {
    async fn two_instances_claim_each_delivery_once(first, second) {
        let org = organization(first, "Acme");
        let hook = add(first, org, &[]).await;
        let ids = queue_tests(first, &hook, 40, at(0)).await;
        let (a, b) = (DieselWebhookRepository::new(first.clone()), DieselWebhookRepository::new(second.clone()));
        let mut seen = HashSet::new();
        loop {
            let (x, y) = tokio::join!(a.claim_due(at(1), 3, 100, 100, at(5)), b.claim_due(at(1), 3, 100, 100, at(5)));
            let (x, y) = (x.unwrap(), y.unwrap());
            if x.is_empty() && y.is_empty() {
                break;
            }
            for claim in x.into_iter().chain(y) {
                assert!(seen.insert(claim.delivery.id.clone()), "claimed twice: {}", claim.delivery.id);
            }
        }
        assert_eq!(seen, ids.into_iter().collect());
        assert_eq!(a.backlog().await.unwrap().pending, 40);
    }
}
