//! The webhook use cases and attempts, over mocked ports.

use std::sync::{Arc, Mutex};

use super::models::{SealedSecrets, SigningSecrets, WebhookDelivery};
use super::payload::test_event;
use super::ports::{ClaimedDelivery, MockWebhookRepository, MockWebhookSender, SendError, SendResult};
use super::service::*;
use super::*;
use crate::common::{Caller, ClientOrigin, EmailAddress, OrgId, UserId};
use crate::orgs::ports::MockMemberDirectory;
use crate::orgs::{ActingMember, MemberStanding, OrgRole, SecondFactor};
use crate::testing::{RepeatingBytes, block_on, fixed_clock, noon};

fn member(role: OrgRole) -> ActingMember {
    let mut directory = MockMemberDirectory::new();
    directory.expect_standing_of().returning(move |_, _| {
        Ok(Some(MemberStanding {
            role,
            org_requires_two_factor: false,
        }))
    });
    let caller = Caller {
        user_id: UserId::new(),
        email: EmailAddress::parse("ada@example.com").unwrap(),
        platform_role: None,
        origin: ClientOrigin::default(),
    };
    block_on(ActingMember::resolve(
        crate::orgs::StandingSource::Directory(&directory, OrgId::new()),
        caller,
        SecondFactor::NotPassed,
        crate::orgs::Door::Act,
    ))
    .unwrap()
    .unwrap()
}

fn service(repo: MockWebhookRepository, sender: MockWebhookSender) -> WebhookService {
    WebhookService::new(
        Arc::new(repo),
        Arc::new(sender),
        Arc::new(fixed_clock()),
        Arc::new(RepeatingBytes(9)),
        WebhookConfig {
            public_url: "https://portal.example.com".into(),
            allow_private: false,
            digest_key: digest_key(),
            send_limits: SendLimits::default(),
        },
    )
}

fn delivery(repo: MockWebhookRepository, sender: MockWebhookSender) -> WebhookDeliveryService {
    WebhookDeliveryService::new(
        Arc::new(repo),
        Arc::new(sender),
        Arc::new(fixed_clock()),
        Arc::new(RepeatingBytes(9)),
        WebhookConfig {
            public_url: "https://portal.example.com".into(),
            allow_private: false,
            digest_key: digest_key(),
            send_limits: SendLimits::default(),
        },
    )
}

fn digest_key() -> crate::identity::DigestKey {
    crate::identity::DigestKey::new(vec![5; 32])
}

fn signing_secret() -> WebhookSecret {
    WebhookSecret::generate(&RepeatingBytes(1))
}

fn claim(failing_since: Option<chrono::DateTime<chrono::Utc>>, attempts: u32) -> ClaimedDelivery {
    let org = OrgId::new();
    let endpoint = WebhookEndpointId(uuid::Uuid::new_v4());
    ClaimedDelivery {
        delivery: WebhookDelivery {
            id: "msg_1".into(),
            endpoint_id: endpoint,
            event: test_event(org, endpoint, noon()),
            created_at: noon(),
            status: DeliveryStatus::Pending,
            attempts,
            next_attempt_at: Some(noon()),
            last_attempt_at: None,
            last_status: None,
            last_duration_ms: None,
            last_response: None,
            last_error: None,
        },
        url: "https://hooks.example.com/in".into(),
        secrets: SealedSecrets {
            current: SealedSecret::seal(&signing_secret(), &digest_key(), endpoint, &[2; 24]),
            previous: None,
        },
        failing_since,
    }
}

fn answering(status: u16) -> MockWebhookSender {
    let mut sender = MockWebhookSender::new();
    sender.expect_send().returning(move |_, _, _| {
        Ok(SendResult {
            status,
            body: Some("x".repeat(5000)),
            duration_ms: 7,
        })
    });
    sender
}

fn recording(records: Arc<Mutex<Vec<AttemptRecord>>>) -> MockWebhookRepository {
    let mut repo = MockWebhookRepository::new();
    repo.expect_record_attempt().returning(move |record| {
        records.lock().unwrap().push(record.clone());
        Ok(())
    });
    repo.expect_admin_emails()
        .returning(|_| Ok(vec![EmailAddress::parse("admin@example.com").unwrap()]));
    repo
}

#[test]
fn a_delivery_is_signed_so_that_the_receiver_can_check_it() {
    let claim = claim(None, 0);
    let body = "{\"type\":\"webhook.test\"}";
    let secrets = SigningSecrets {
        current: signing_secret(),
        previous: None,
    };
    let headers = WebhookDeliveryService::headers(&claim, &secrets, body, noon());
    let get = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert_eq!(get("webhook-id"), "msg_1");
    assert_eq!(get("webhook-timestamp"), noon().timestamp().to_string());
    assert_eq!(
        get("webhook-signature"),
        signing_secret().sign("msg_1", noon().timestamp(), body)
    );
}

#[test]
fn a_2xx_is_delivered_and_heals_the_endpoint_keeping_4_kb_of_the_answer() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let service = delivery(recording(records.clone()), answering(204));
    let outcome = block_on(service.attempt(&claim(Some(noon()), 2))).unwrap();
    assert_eq!(outcome, AttemptOutcome::Delivered);
    let record = records.lock().unwrap()[0].clone();
    assert!(record.delivered);
    assert_eq!(
        (record.attempts, record.next_attempt_at, record.failing_since),
        (3, None, None)
    );
    assert_eq!(record.response.map(|r| r.len()), Some(MAX_RESPONSE_BYTES));
}

#[test]
fn a_500_is_retried_on_the_schedule_and_the_last_failure_gives_up() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let service = delivery(recording(records.clone()), answering(500));
    assert_eq!(
        block_on(service.attempt(&claim(None, 0))).unwrap(),
        AttemptOutcome::Retrying
    );
    let first = records.lock().unwrap()[0].clone();
    let wait = first.next_attempt_at.unwrap() - noon();
    assert!(
        wait >= chrono::Duration::seconds(4) && wait <= chrono::Duration::seconds(6),
        "{wait}"
    );
    assert_eq!(first.failing_since, Some(noon()));
    assert_eq!(first.error.as_deref(), Some("answered HTTP 500"));
    let last = claim(Some(noon() - chrono::Duration::hours(1)), retry::MAX_ATTEMPTS - 1);
    assert_eq!(block_on(service.attempt(&last)).unwrap(), AttemptOutcome::GivenUp);
    assert_eq!(records.lock().unwrap()[1].next_attempt_at, None);
}

#[test]
fn a_timeout_is_a_failure_without_status() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let mut sender = MockWebhookSender::new();
    sender.expect_send().returning(|_, _, _| Err(SendError::Timeout));
    let service = delivery(recording(records.clone()), sender);
    assert_eq!(
        block_on(service.attempt(&claim(None, 0))).unwrap(),
        AttemptOutcome::Retrying
    );
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(
        (record.status, record.error.as_deref()),
        (None, Some("no answer within the time limit"))
    );
}

#[test]
fn a_410_disables_the_endpoint_and_tells_the_admins() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let service = delivery(recording(records.clone()), answering(410));
    assert_eq!(
        block_on(service.attempt(&claim(None, 0))).unwrap(),
        AttemptOutcome::Disabled
    );
    let record = records.lock().unwrap()[0].clone();
    let (reason, audit, emails) = record.disable.unwrap();
    assert_eq!(reason, DisabledReason::Gone);
    assert_eq!(audit.action, crate::audit::AuditAction::WebhookDisabled);
    assert_eq!(audit.actor_id, None);
    assert_eq!(emails.len(), 1);
    assert_eq!(emails[0].to.as_str(), "admin@example.com");
    assert!(emails[0].text.contains("410 Gone"));
    assert_eq!(record.next_attempt_at, None);
    // The URL's path (`/in`), which may hold a secret, is in neither the e-mail nor the audit entry.
    assert!(
        emails[0].text.contains("https://hooks.example.com/…") && !emails[0].text.contains("/in"),
        "{}",
        emails[0].text
    );
    assert_eq!(
        audit.target.and_then(|t| t.label).as_deref(),
        Some("https://hooks.example.com/…")
    );
}

#[test]
fn three_days_of_failures_disable_the_endpoint() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let service = delivery(recording(records.clone()), answering(503));
    let since = noon() - chrono::Duration::days(3);
    assert_eq!(
        block_on(service.attempt(&claim(Some(since), 4))).unwrap(),
        AttemptOutcome::Disabled
    );
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.disable.map(|d| d.0), Some(DisabledReason::Failing));
}

#[test]
fn only_admins_manage_webhooks_and_nothing_is_read_for_a_member() {
    let service = service(MockWebhookRepository::new(), MockWebhookSender::new());
    let member = member(OrgRole::Member);
    assert!(matches!(
        block_on(service.list(&member)),
        Err(WebhookError::AdminOnly)
    ));
    assert!(matches!(
        block_on(service.create(&member, NewEndpoint::default())),
        Err(WebhookError::AdminOnly)
    ));
}

#[test]
fn an_endpoint_must_be_https_and_public() {
    let mut sender = MockWebhookSender::new();
    sender.expect_check_target().returning(|url| {
        if url.contains("internal") {
            Err(SendError::PrivateTarget)
        } else {
            Ok(())
        }
    });
    let mut repo = MockWebhookRepository::new();
    repo.expect_create_endpoint().times(1).returning(|_, _, _| Ok(()));
    let service = service(repo, sender);
    let admin = member(OrgRole::Admin);
    let create = |url: &str| {
        block_on(service.create(
            &admin,
            NewEndpoint {
                url: url.into(),
                description: "CI".into(),
                events: vec![WebhookEventType::AppApproved],
            },
        ))
    };
    let refused = |result: Result<_, WebhookError>| match result {
        Err(WebhookError::Validation(fields)) => fields.get("url").map(str::to_owned),
        _ => None,
    };
    // Each refusal names the setting that lifts it for local development (issue 48 item 6).
    let plain = refused(create("http://hooks.example.com/in")).unwrap();
    assert!(
        plain.contains("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS=true"),
        "{plain}"
    );
    let private = refused(create("https://internal.example.com/in")).unwrap();
    assert!(private.contains("public address"), "{private}");
    assert!(
        private.contains("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS=true"),
        "{private}"
    );
    let (endpoint, secret) = create("https://hooks.example.com/in").unwrap();
    assert!(secret.as_str().starts_with("whsec_"));
    assert_eq!(
        endpoint.events,
        EventFilter::from_list(&[WebhookEventType::AppApproved])
    );
    assert!(endpoint.enabled);
}

#[test]
fn the_endpoint_limit_is_a_conflict_and_a_busy_delivery_cannot_be_retried() {
    let mut sender = MockWebhookSender::new();
    sender.expect_check_target().returning(|_| Ok(()));
    let mut repo = MockWebhookRepository::new();
    repo.expect_create_endpoint()
        .returning(|_, _, _| Err(crate::common::RepoError::Conflict("limit".into())));
    repo.expect_retry_delivery()
        .returning(|_, _, _, _, _| Err(crate::common::RepoError::Conflict("busy".into())));
    let service = service(repo, sender);
    let admin = member(OrgRole::Admin);
    let input = NewEndpoint {
        url: "https://hooks.example.com/in".into(),
        ..NewEndpoint::default()
    };
    assert!(matches!(
        block_on(service.create(&admin, input)),
        Err(WebhookError::TooMany)
    ));
    let id = WebhookEndpointId(uuid::Uuid::new_v4());
    assert!(matches!(
        block_on(service.retry(&admin, id, "msg_1")),
        Err(WebhookError::InProgress)
    ));
}

#[test]
fn the_audit_log_names_an_endpoint_without_the_path_of_its_url() {
    let admin = member(OrgRole::Admin);
    let audits: Arc<Mutex<Vec<crate::audit::AuditEntry>>> = Arc::default();
    let mut sender = MockWebhookSender::new();
    sender.expect_check_target().returning(|_| Ok(()));
    let mut repo = MockWebhookRepository::new();
    let created = audits.clone();
    repo.expect_create_endpoint().returning(move |_, _, audit| {
        created.lock().unwrap().push(audit.clone());
        Ok(())
    });
    let updated = audits.clone();
    repo.expect_update_endpoint().returning(move |_, audit| {
        updated.lock().unwrap().push(audit.clone());
        Ok(())
    });
    let stored: Arc<Mutex<Option<WebhookEndpoint>>> = Arc::default();
    let found = stored.clone();
    repo.expect_find_endpoint()
        .returning(move |_, _| Ok(found.lock().unwrap().clone()));
    let service = service(repo, sender);
    let (endpoint, _) = block_on(service.create(
        &admin,
        NewEndpoint {
            url: "https://hooks.slack.com/services/T000/B000/s3cret".into(),
            ..NewEndpoint::default()
        },
    ))
    .unwrap();
    assert_eq!(endpoint.url, "https://hooks.slack.com/services/T000/B000/s3cret");
    *stored.lock().unwrap() = Some(endpoint.clone());
    let change = |url: &str| {
        block_on(service.update(
            &admin,
            endpoint.id,
            EndpointChange {
                url: Some(url.into()),
                ..EndpointChange::default()
            },
        ))
        .unwrap()
    };
    change("https://hooks.slack.com/services/T000/B000/other-s3cret");
    change("https://ci.example.com/hook?token=s3cret");
    let audits = audits.lock().unwrap();
    let urls: Vec<(serde_json::Value, serde_json::Value)> = audits
        .iter()
        .flat_map(|a| a.changes.iter().filter(|c| c.field == "url"))
        .map(|c| (c.old.clone(), c.new.clone()))
        .collect();
    assert_eq!(
        urls,
        [
            (serde_json::Value::Null, "https://hooks.slack.com/…".into()),
            (
                "https://hooks.slack.com/…".into(),
                "https://hooks.slack.com/… (another path)".into()
            ),
            (
                "https://hooks.slack.com/…".into(),
                "https://ci.example.com/…".into()
            ),
        ]
    );
    let labels: Vec<Option<String>> = audits
        .iter()
        .map(|a| a.target.as_ref().and_then(|t| t.label.clone()))
        .collect();
    assert_eq!(
        labels,
        [
            Some("https://hooks.slack.com/…".to_owned()),
            Some("https://hooks.slack.com/…".to_owned()),
            Some("https://ci.example.com/…".to_owned()),
        ]
    );
    assert!(!format!("{audits:?}").contains("s3cret"));
}

#[test]
fn a_new_or_rotated_secret_is_stored_sealed_and_the_claim_signs_with_it() {
    let stored: Arc<Mutex<Vec<(WebhookEndpointId, SealedSecret)>>> = Arc::default();
    let mut sender = MockWebhookSender::new();
    sender.expect_check_target().returning(|_| Ok(()));
    let mut repo = MockWebhookRepository::new();
    let created = stored.clone();
    repo.expect_create_endpoint()
        .returning(move |endpoint, secret, _| {
            created.lock().unwrap().push((endpoint.id, secret.clone()));
            Ok(())
        });
    let rotated = stored.clone();
    repo.expect_find_endpoint().returning(|_, _| {
        Ok(Some(WebhookEndpoint {
            id: WebhookEndpointId(uuid::Uuid::nil()),
            org_id: OrgId::new(),
            url: "https://hooks.example.com/in".into(),
            description: String::new(),
            events: EventFilter::All,
            enabled: true,
            disabled_reason: None,
            created_at: noon(),
            updated_at: noon(),
            failing_since: None,
            last_attempt_at: None,
            last_attempt_ok: None,
            previous_secret_until: None,
        }))
    });
    repo.expect_rotate_secret().returning(move |_, id, secret, _, _| {
        rotated.lock().unwrap().push((id, secret.clone()));
        Ok(())
    });
    let service = service(repo, sender);
    let admin = member(OrgRole::Admin);
    let (endpoint, secret) = block_on(service.create(
        &admin,
        NewEndpoint {
            url: "https://hooks.example.com/in".into(),
            ..NewEndpoint::default()
        },
    ))
    .unwrap();
    let next = block_on(service.rotate_secret(&admin, endpoint.id)).unwrap();
    let stored = stored.lock().unwrap();
    for ((id, sealed), shown) in stored.iter().zip([&secret, &next]) {
        assert!(!sealed.is_plain());
        let key = shown.as_str().trim_start_matches("whsec_");
        assert!(
            !sealed.as_str().contains(key),
            "the stored value is not the secret"
        );
        assert_eq!(&sealed.open(&digest_key(), *id).unwrap(), shown);
    }
}

#[test]
fn an_attempt_signs_with_the_opened_secret_and_one_that_does_not_open_is_a_failed_attempt() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let mut sender = MockWebhookSender::new();
    sender.expect_send().times(1).returning(|_, headers, body| {
        let signature = headers.iter().find(|(n, _)| n == "webhook-signature").unwrap();
        assert_eq!(
            signature.1,
            signing_secret().sign("msg_1", noon().timestamp(), body)
        );
        Ok(SendResult {
            status: 204,
            body: Some(String::new()),
            duration_ms: 1,
        })
    });
    let service = delivery(recording(records.clone()), sender);
    assert_eq!(
        block_on(service.attempt(&claim(None, 0))).unwrap(),
        AttemptOutcome::Delivered
    );
    let mut moved = claim(None, 0);
    // A sealed secret copied to another endpoint's row does not open there.
    moved.delivery.endpoint_id = WebhookEndpointId(uuid::Uuid::new_v4());
    assert_eq!(
        block_on(service.attempt(&moved)).unwrap(),
        AttemptOutcome::Retrying
    );
    let records = records.lock().unwrap();
    assert!(records[1].error.as_deref().unwrap().contains("does not open"));
}

#[test]
fn no_answer_body_is_kept_from_a_target_that_is_not_public() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let mut sender = MockWebhookSender::new();
    sender.expect_send().returning(|_, _, _| {
        Ok(SendResult {
            status: 200,
            body: None,
            duration_ms: 3,
        })
    });
    let service = delivery(recording(records.clone()), sender);
    block_on(service.attempt(&claim(None, 0))).unwrap();
    let record = records.lock().unwrap()[0].clone();
    assert_eq!((record.status, record.response), (Some(200), None));
}

#[test]
fn a_send_by_hand_past_its_limit_says_which_limit_and_when_to_try_again() {
    let mut repo = MockWebhookRepository::new();
    repo.expect_enqueue_for().times(1).returning(|_, _, _, _| {
        Ok(Admission::Limited {
            scope: LimitScope::Endpoint,
            retry_at: noon() + chrono::Duration::milliseconds(41_200),
        })
    });
    repo.expect_retry_delivery().times(1).returning(|_, _, _, _, _| {
        Ok(Admission::Limited {
            scope: LimitScope::Organization,
            retry_at: noon() + chrono::Duration::seconds(1),
        })
    });
    let service = service(repo, MockWebhookSender::new());
    let admin = member(OrgRole::Admin);
    let id = WebhookEndpointId(uuid::Uuid::new_v4());
    let Err(WebhookError::SendLimited {
        message,
        retry_after_secs,
    }) = block_on(service.send_test(&admin, id))
    else {
        panic!("a test past the endpoint's limit is refused");
    };
    assert_eq!(retry_after_secs, 42);
    assert_eq!(
        message,
        "This endpoint has had 5 tests and retries in the last minute, the most allowed. Try again in 42 seconds."
    );
    let error = block_on(service.retry(&admin, id, "msg_1")).unwrap_err();
    assert_eq!(error.code(), "RATE_LIMITED");
    assert_eq!(
        error.to_string(),
        "Your organization has sent 20 webhook tests and retries in the last minute, the most allowed. Try again \
         in 1 second."
    );
}

#[test]
fn a_test_to_an_endpoint_with_a_full_queue_is_refused() {
    let mut repo = MockWebhookRepository::new();
    repo.expect_enqueue_for()
        .returning(|_, _, _, _| Ok(Admission::Backlog));
    let service = service(repo, MockWebhookSender::new());
    let error = block_on(service.send_test(&member(OrgRole::Admin), WebhookEndpointId(uuid::Uuid::nil())))
        .unwrap_err();
    assert!(matches!(error, WebhookError::Backlog));
    assert_eq!(error.code(), "WEBHOOK_BACKLOG");
}

#[test]
fn secrets_stored_in_the_clear_are_sealed_once() {
    let endpoint = WebhookEndpointId(uuid::Uuid::from_u128(3));
    let plain = SealedSecret::stored(signing_secret().as_str().to_owned());
    let resealed: Arc<Mutex<Vec<SealedSecret>>> = Arc::default();
    let mut repo = MockWebhookRepository::new();
    let rows = vec![(endpoint, SecretSlot::Current, plain.clone())];
    repo.expect_plain_secrets()
        .times(1)
        .returning(move |_| Ok(rows.clone()));
    let written = resealed.clone();
    repo.expect_reseal_secret()
        .times(1)
        .returning(move |id, slot, old, new| {
            assert_eq!(
                (id, slot, old.as_str()),
                (endpoint, SecretSlot::Current, signing_secret().as_str())
            );
            written.lock().unwrap().push(new.clone());
            Ok(true)
        });
    let service = delivery(repo, MockWebhookSender::new());
    assert_eq!(block_on(service.seal_stored_secrets()).unwrap(), 1);
    let sealed = resealed.lock().unwrap()[0].clone();
    assert!(!sealed.is_plain());
    assert_eq!(sealed.open(&digest_key(), endpoint).unwrap(), signing_secret());
}
