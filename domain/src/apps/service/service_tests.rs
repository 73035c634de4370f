//! Tests of the app use cases, with mocked ports.

use std::sync::Arc;

use mockall::predicate::{always, eq};

use super::fixtures::{developer, members, members_by_org, package, sample_app};
use super::*;
use crate::apps::ports::{MockAppRepository, MockOrgProfileLookup, OrgContact};
use crate::apps::review_events::ReviewEventKind;
use crate::apps::validation::AppDetailsInput;
use crate::apps::validation::UpdateInput;
use crate::apps::{AppStoreStatus, Permission, PermissionType};
use crate::common::secrets::digest_secret;
use crate::common::{Caller, EmailAddress, ImageId, OrgId, ServerUrlRule};
use crate::media::ports::MockImageStore;
use crate::orgs::ports::MockMemberDirectory;
use crate::testing::{RepeatingBytes, block_on, fixed_clock, noon};

struct Harness {
    apps: MockAppRepository,
    members: MockMemberDirectory,
    orgs: MockOrgProfileLookup,
    images: MockImageStore,
    server_urls: ServerUrlRule,
}

impl Harness {
    fn new(role: Option<OrgRole>) -> Self {
        Self {
            apps: MockAppRepository::new(),
            members: members(role),
            orgs: MockOrgProfileLookup::new(),
            images: MockImageStore::new(),
            server_urls: ServerUrlRule::HttpsOnly,
        }
    }

    fn member() -> Self {
        Self::new(Some(OrgRole::Member))
    }

    fn with_app(mut self, app: App) -> Self {
        self.apps
            .expect_get()
            .returning(move |_, _| Ok(Some(app.clone())));
        self
    }

    fn config(&self) -> AppServiceConfig {
        AppServiceConfig {
            store_base_url: "https://store.example.com".into(),
            server_urls: self.server_urls,
        }
    }

    fn service(self) -> AppService {
        let config = self.config();
        AppService::new(
            Arc::new(self.apps),
            Arc::new(self.images),
            Arc::new(fixed_clock()),
            Arc::new(RepeatingBytes(0x11)),
            config,
        )
    }

    fn publishing(self) -> AppPublishingService {
        let config = self.config();
        AppPublishingService::new(
            Arc::new(self.apps),
            Arc::new(self.members),
            Arc::new(self.orgs),
            Arc::new(fixed_clock()),
            Arc::new(RepeatingBytes(0x11)),
            config,
        )
    }
}

fn registration() -> RegistrationInput {
    RegistrationInput {
        package_name: "com.example.notes".into(),
        details: AppDetailsInput {
            name: Some("Notes".into()),
            description: Some("Takes notes".into()),
            public_url: Some("notes.example.com".into()),
            logo_url: Some("https://portal.example.com/api/images/1".into()),
            ..AppDetailsInput::default()
        },
        ..RegistrationInput::default()
    }
}

fn complete_profile() -> MockOrgProfileLookup {
    let mut orgs = MockOrgProfileLookup::new();
    orgs.expect_profile().returning(|_| {
        Ok(Some(OrgContact {
            name: "Acme".into(),
            contact_email: Some(EmailAddress::parse("ops@acme.example").unwrap()),
            logo: None,
        }))
    });
    orgs
}

// ---- register, read ----

#[test]
fn a_member_registers_an_app_and_gets_its_key_once() {
    let org = OrgId::new();
    let who = developer();
    let mut h = Harness::member();
    let expected_key = format!("mk_{}", "11".repeat(32));
    let expected_hash = digest_secret(&expected_key);
    h.apps
        .expect_insert()
        .withf(move |app, hash, _| app.org_id == org && hash == expected_hash)
        .times(1)
        .returning(|_, _, _| Ok(()));
    let registered = block_on(
        h.service()
            .register(&member_as(&who, org, OrgRole::Member), &registration()),
    )
    .unwrap();
    assert_eq!(registered.api_key.expose(), expected_key);
    assert_eq!(registered.app.developer_id, who.user_id);
    assert_eq!(registered.app.app_store_status, AppStoreStatus::Development);
    assert_eq!(registered.app.public_url, "https://notes.example.com");
    assert_eq!(registered.app.created_at, noon());
}

/// Registers `public_url` under `rule` and answers the stored server URL.
fn registered_server_url(rule: ServerUrlRule, public_url: &str) -> String {
    let org = OrgId::new();
    let mut h = Harness::member();
    h.server_urls = rule;
    h.apps.expect_insert().returning(|_, _, _| Ok(()));
    let mut input = registration();
    input.details.public_url = Some(public_url.into());
    block_on(
        h.service()
            .register(&member_as(&developer(), org, OrgRole::Member), &input),
    )
    .unwrap()
    .app
    .public_url
}

#[test]
fn a_loopback_http_server_url_is_upgraded_to_https_by_default() {
    assert_eq!(
        registered_server_url(ServerUrlRule::HttpsOnly, "http://localhost:3000/"),
        "https://localhost:3000"
    );
}

#[test]
fn local_development_keeps_a_loopback_http_server_url_as_typed() {
    let keep = ServerUrlRule::KeepLoopbackHttp;
    assert_eq!(
        registered_server_url(keep, "http://localhost:3000/"),
        "http://localhost:3000"
    );
    assert_eq!(
        registered_server_url(keep, "HTTP://127.0.0.1:3000"),
        "http://127.0.0.1:3000"
    );
    assert_eq!(
        registered_server_url(keep, "http://[::1]:3000/app"),
        "http://[::1]:3000/app"
    );
    // Anything that is not loopback is upgraded as the specification says.
    assert_eq!(
        registered_server_url(keep, "http://example.com"),
        "https://example.com"
    );
    assert_eq!(
        registered_server_url(keep, "http://10.0.0.5:3000"),
        "https://10.0.0.5:3000"
    );
}

#[test]
fn an_invalid_registration_reports_its_fields_and_stores_nothing() {
    let mut input = registration();
    input.details.name = Some(String::new());
    let err = block_on(
        Harness::member()
            .service()
            .register(&member_as(&developer(), OrgId::new(), OrgRole::Member), &input),
    )
    .unwrap_err();
    assert_eq!(err.fields().unwrap()["name"], "Display name is required");
    assert_eq!(err.to_string(), "Display name is required");
}

#[test]
fn a_taken_package_name_is_reported_on_the_package_name_field() {
    let mut h = Harness::member();
    h.apps
        .expect_insert()
        .returning(|_, _, _| Err(RepoError::Duplicate("package_name")));
    let err = block_on(h.service().register(
        &member_as(&developer(), OrgId::new(), OrgRole::Member),
        &registration(),
    ))
    .unwrap_err();
    assert!(matches!(err, AppError::DuplicatePackageName));
    assert_eq!(
        err.fields().unwrap()["packageName"],
        "This package name is already in use. Please choose another."
    );
}

/// The caller acting in `org` with `role`, as the member directory answers.
/// The caller `who` acting in `org` with `role`, as the membership extractor hands it over.
fn member_as(who: &Caller, org: OrgId, role: OrgRole) -> ActingMember {
    block_on(ActingMember::resolve(
        crate::orgs::StandingSource::Directory(&members(Some(role)), org),
        who.clone(),
        crate::orgs::SecondFactor::NotPassed,
        crate::orgs::Door::Act,
    ))
    .unwrap()
    .unwrap()
}

fn acting(org: OrgId, role: OrgRole) -> ActingMember {
    block_on(ActingMember::resolve(
        crate::orgs::StandingSource::Directory(&members(Some(role)), org),
        developer(),
        crate::orgs::SecondFactor::NotPassed,
        crate::orgs::Door::Act,
    ))
    .unwrap()
    .unwrap()
}

#[test]
fn a_member_lists_the_organizations_apps_without_asking_the_directory_again() {
    let org = OrgId::new();
    let mut h = Harness::member();
    h.members = MockMemberDirectory::new(); // no expectation: asking again would panic
    h.apps
        .expect_list()
        .with(eq(org))
        .returning(move |org| Ok(vec![sample_app(org, AppStoreStatus::Development)]));
    let apps = block_on(h.service().list(&acting(org, OrgRole::Member))).unwrap();
    assert_eq!(apps.len(), 1);
}

#[test]
fn an_outsider_has_no_membership_to_list_an_organizations_apps_with() {
    let outsider = block_on(ActingMember::resolve(
        crate::orgs::StandingSource::Directory(&members(None), OrgId::new()),
        developer(),
        crate::orgs::SecondFactor::NotPassed,
        crate::orgs::Door::Act,
    ))
    .unwrap();
    assert_eq!(outsider, None);
}

#[test]
fn a_member_reads_the_revision_of_the_organizations_apps() {
    let org = OrgId::new();
    let mut h = Harness::member();
    h.members = MockMemberDirectory::new();
    h.apps.expect_revision().with(eq(org)).returning(|_| Ok(7));
    assert_eq!(
        block_on(h.service().list_revision(&acting(org, OrgRole::Admin))).unwrap(),
        7
    );
}

#[test]
fn a_revision_read_with_the_membership_is_not_read_again() {
    let org = OrgId::new();
    let mut h = Harness::member();
    h.members = MockMemberDirectory::new();
    h.apps = MockAppRepository::new(); // no expectation: reading the revision again would panic
    let who = developer();
    let read = crate::orgs::MembershipRead::new(who.user_id, org, Some(OrgRole::Member), false, 9);
    let member = block_on(ActingMember::resolve(
        crate::orgs::StandingSource::Read(&read),
        who,
        crate::orgs::SecondFactor::NotPassed,
        crate::orgs::Door::Act,
    ))
    .unwrap()
    .unwrap();
    assert_eq!(block_on(h.service().list_revision(&member)).unwrap(), 9);
}

#[test]
fn an_app_of_another_organization_is_not_found() {
    let mut h = Harness::member();
    h.apps.expect_get().returning(|_, _| Ok(None));
    let err = block_on(h.service().get(
        &member_as(&developer(), OrgId::new(), OrgRole::Member),
        &package(),
    ))
    .unwrap_err();
    assert!(matches!(err, AppError::NotFound));
    assert_eq!(err.code(), "NOT_FOUND");
}

// ---- update ----

fn rename(name: &str) -> UpdateInput {
    UpdateInput {
        details: AppDetailsInput {
            name: Some(name.into()),
            ..AppDetailsInput::default()
        },
        ..UpdateInput::default()
    }
}

#[test]
fn editing_a_development_app_records_no_review_event() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Development));
    h.apps
        .expect_update()
        .withf(|_, app, expected, events, _| {
            app.name == "Renamed" && *expected == AppStoreStatus::Development && events.is_empty()
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let app = block_on(h.service().update(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        &rename("Renamed"),
    ))
    .unwrap();
    assert_eq!(app.name, "Renamed");
}

#[test]
fn editing_a_published_app_keeps_it_published_and_records_what_changed() {
    let org = OrgId::new();
    let who = developer();
    let actor = who.user_id;
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Published));
    h.apps
        .expect_update()
        .withf(move |_, app, expected, events, audit| {
            let [event] = events.as_slice() else {
                return false;
            };
            let old_name = sample_app(org, AppStoreStatus::Published).name;
            app.app_store_status == AppStoreStatus::Published
                && *expected == AppStoreStatus::Published
                && event.kind == ReviewEventKind::EditedAfterApproval
                && event.actor == actor
                && event.detail == Some(serde_json::json!({"changedFields": ["name"]}))
                && audit.action == AuditAction::AppUpdated
                && audit.actor_id == Some(actor)
                && audit.changes
                    == vec![crate::audit::FieldChange {
                        field: "name".into(),
                        old: serde_json::json!(old_name),
                        new: serde_json::json!("Notes 2"),
                    }]
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let app = block_on(h.service().update(
        &member_as(&who, org, OrgRole::Member),
        &package(),
        &rename("Notes 2"),
    ))
    .unwrap();
    assert_eq!(app.app_store_status, AppStoreStatus::Published);
}

#[test]
fn an_unchanged_published_app_records_no_edit_event() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Published));
    h.apps
        .expect_update()
        .withf(|_, _, _, events, _| events.is_empty())
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    block_on(h.service().update(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        &rename("Notes"),
    ))
    .unwrap();
}

#[test]
fn an_edit_that_races_a_status_change_is_a_conflict() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Submitted));
    h.apps
        .expect_update()
        .returning(|_, _, _, _, _| Err(RepoError::Conflict("status".into())));
    let err = block_on(h.service().update(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        &rename("X"),
    ))
    .unwrap_err();
    assert!(matches!(err, AppError::Conflict));
}

#[test]
fn an_invalid_update_is_refused_before_the_app_is_read() {
    let err = block_on(Harness::member().service().update(
        &member_as(&developer(), OrgId::new(), OrgRole::Member),
        &package(),
        &rename(" "),
    ))
    .unwrap_err();
    assert_eq!(err.fields().unwrap()["name"], "Display name is required");
}

// ---- delete, keys ----

#[test]
fn deleting_an_app_removes_its_image_files_and_reports_those_left() {
    let org = OrgId::new();
    let (kept, gone) = (ImageId::new(), ImageId::new());
    let stored = sample_app(org, AppStoreStatus::Development);
    let name = stored.name.as_str().to_owned();
    let mut h = Harness::member().with_app(stored);
    h.apps
        .expect_delete()
        .withf(move |o, p, audit| {
            // The entry keeps the app's name: once it is gone, nothing else shows it.
            *o == org
                && *p == package()
                && audit.target.as_ref().and_then(|t| t.label.as_deref()) == Some(name.as_str())
        })
        .times(1)
        .returning(move |_, _, _| Ok(vec![gone, kept]));
    let kept_key = kept.to_string();
    h.images.expect_delete().times(2).returning(move |key| {
        if key == kept_key {
            Err(RepoError::backend("disk", "busy"))
        } else {
            Ok(())
        }
    });
    let outcome = block_on(
        h.service()
            .delete(&member_as(&developer(), org, OrgRole::Member), &package()),
    )
    .unwrap();
    assert_eq!(outcome.unremoved_files, vec![kept.to_string()]);
}

#[test]
fn deleting_a_missing_app_is_not_found() {
    let mut h = Harness::member();
    h.apps.expect_get().returning(|_, _| Ok(None));
    h.apps.expect_delete().never();
    let err = block_on(h.service().delete(
        &member_as(&developer(), OrgId::new(), OrgRole::Member),
        &package(),
    ))
    .unwrap_err();
    assert!(matches!(err, AppError::NotFound));
}

#[test]
fn regenerating_a_key_stores_only_the_new_digest() {
    let org = OrgId::new();
    let mut h = Harness::member();
    let expected = digest_secret(&format!("mk_{}", "11".repeat(32)));
    h.apps
        .expect_replace_key_hash()
        .withf(move |o, _, hash, audit| {
            *o == org
                && hash == expected
                && audit.action == AuditAction::AppKeyRegenerated
                && audit.org_id == Some(org)
                && audit.target == Some(AuditTarget::app(&package()))
                && audit.changes.is_empty()
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let key = block_on(
        h.service()
            .regenerate_key(&member_as(&developer(), org, OrgRole::Member), &package()),
    )
    .unwrap();
    assert!(key.expose().starts_with("mk_"));
}

// ---- permissions ----

fn perm(kind: PermissionType) -> Permission {
    Permission {
        kind,
        description: None,
    }
}

#[test]
fn the_permissions_of_an_app_are_read_by_members() {
    let org = OrgId::new();
    let mut app = sample_app(org, AppStoreStatus::Development);
    app.permissions = vec![perm(PermissionType::Camera)];
    let got = block_on(
        Harness::member()
            .with_app(app)
            .service()
            .permissions(&member_as(&developer(), org, OrgRole::Member), &package()),
    )
    .unwrap();
    assert_eq!(got, vec![perm(PermissionType::Camera)]);
}

#[test]
fn setting_permissions_keeps_a_legacy_type_the_app_already_had() {
    let org = OrgId::new();
    let mut app = sample_app(org, AppStoreStatus::Development);
    app.permissions = vec![perm(PermissionType::Notifications)];
    let mut h = Harness::member().with_app(app);
    h.apps
        .expect_update()
        .withf(|_, app, _, _, _| app.permissions.len() == 2 && app.updated_at == noon())
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let wanted = [
        perm(PermissionType::Notifications),
        perm(PermissionType::Microphone),
    ];
    let saved = block_on(h.service().set_permissions(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        &wanted,
    ))
    .unwrap();
    assert_eq!(saved.permissions, wanted.to_vec());
}

#[test]
fn a_newly_added_legacy_permission_is_refused_on_the_permissions_field() {
    let org = OrgId::new();
    let h = Harness::member().with_app(sample_app(org, AppStoreStatus::Development));
    let err = block_on(h.service().set_permissions(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        &[perm(PermissionType::Notifications)],
    ))
    .unwrap_err();
    assert!(err.fields().unwrap()["permissions"].contains("legacy"));
}

#[test]
fn adding_a_permission_to_a_published_app_sends_it_back_to_submitted_and_records_both() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Published));
    h.apps
        .expect_update()
        .withf(|_, app, expected, events, _| {
            let kinds: Vec<_> = events.iter().map(|e| e.kind).collect();
            app.app_store_status == AppStoreStatus::Submitted
                && *expected == AppStoreStatus::Published
                && kinds == [ReviewEventKind::EditedAfterApproval, ReviewEventKind::Resubmitted]
                && events[0].detail == Some(serde_json::json!({"changedFields": ["permissions"]}))
                && events[1].detail == Some(serde_json::json!({"addedPermissions": ["CAMERA"]}))
                && events[1].at > events[0].at
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let app = block_on(h.service().set_permissions(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        &[perm(PermissionType::Camera)],
    ))
    .unwrap();
    assert_eq!(app.app_store_status, AppStoreStatus::Submitted);
}

#[test]
fn removing_a_permission_or_changing_its_description_keeps_a_published_app_published() {
    let org = OrgId::new();
    let mut app = sample_app(org, AppStoreStatus::Published);
    app.permissions = vec![perm(PermissionType::Camera), perm(PermissionType::Microphone)];
    let mut h = Harness::member().with_app(app);
    h.apps
        .expect_update()
        .withf(|_, app, _, events, _| {
            app.app_store_status == AppStoreStatus::Published
                && events.len() == 1
                && events[0].kind == ReviewEventKind::EditedAfterApproval
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let mut described = perm(PermissionType::Camera);
    described.description = Some("To read labels".into());
    let app = block_on(h.service().set_permissions(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        &[described],
    ))
    .unwrap();
    assert_eq!(app.app_store_status, AppStoreStatus::Published);
}

#[test]
fn editing_a_submitted_app_is_recorded_with_what_changed() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Submitted));
    h.apps
        .expect_update()
        .withf(|_, app, expected, events, _| {
            app.app_store_status == AppStoreStatus::Submitted
                && *expected == AppStoreStatus::Submitted
                && events.len() == 1
                && events[0].kind == ReviewEventKind::Edited
                && events[0].detail == Some(serde_json::json!({"changedFields": ["name"]}))
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    block_on(h.service().update(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        &rename("Notes 3"),
    ))
    .unwrap();
}

#[test]
fn adding_a_permission_to_a_submitted_or_rejected_app_changes_no_status() {
    for status in [AppStoreStatus::Submitted, AppStoreStatus::Rejected] {
        let org = OrgId::new();
        let mut h = Harness::member().with_app(sample_app(org, status));
        h.apps
            .expect_update()
            .withf(move |_, app, _, events, _| {
                app.app_store_status == status
                    && events.iter().all(|e| e.kind != ReviewEventKind::Resubmitted)
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(()));
        block_on(h.service().set_permissions(
            &member_as(&developer(), org, OrgRole::Member),
            &package(),
            &[perm(PermissionType::Camera)],
        ))
        .unwrap();
    }
}

// ---- publish ----

#[test]
fn publishing_a_development_app_submits_it_and_records_the_submission() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Development));
    h.orgs = complete_profile();
    h.apps
        .expect_transition()
        .withf(move |o, _, expected, change| {
            *o == org
                && *expected == AppStoreStatus::Development
                && change.to == AppStoreStatus::Submitted
                && change.review.is_none()
                && change.event.kind == ReviewEventKind::Submitted
                && change.emails.is_empty()
        })
        .times(1)
        .returning(|o, _, _, change| {
            let mut app = sample_app(o, change.to);
            app.updated_at = change.at;
            Ok(app)
        });
    let app = block_on(
        h.publishing()
            .publish(&member_as(&developer(), org, OrgRole::Member), &package()),
    )
    .unwrap();
    assert_eq!(app.app_store_status, AppStoreStatus::Submitted);
}

#[test]
fn a_rejected_app_can_be_resubmitted_through_the_service() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Rejected));
    h.orgs = complete_profile();
    h.apps
        .expect_transition()
        .withf(|_, _, expected, _| *expected == AppStoreStatus::Rejected)
        .times(1)
        .returning(|o, _, _, change| Ok(sample_app(o, change.to)));
    assert!(
        block_on(
            h.publishing()
                .publish(&member_as(&developer(), org, OrgRole::Member), &package())
        )
        .is_ok()
    );
}

#[test]
fn publishing_needs_an_organization_name_and_contact_email() {
    for contact in [
        OrgContact {
            name: "Acme".into(),
            contact_email: None,
            logo: None,
        },
        OrgContact {
            name: "  ".into(),
            contact_email: Some(EmailAddress::parse("a@b.co").unwrap()),
            logo: None,
        },
    ] {
        let org = OrgId::new();
        let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Development));
        h.orgs
            .expect_profile()
            .returning(move |_| Ok(Some(contact.clone())));
        let err = block_on(
            h.publishing()
                .publish(&member_as(&developer(), org, OrgRole::Member), &package()),
        )
        .unwrap_err();
        assert_eq!(err.code(), "PROFILE_INCOMPLETE");
        assert_eq!(
            err.to_string(),
            "Your organization profile is incomplete. Please fill out your organization name and contact email before publishing an app."
        );
    }
}

#[test]
fn publishing_a_submitted_or_published_app_is_an_illegal_transition() {
    for status in [AppStoreStatus::Submitted, AppStoreStatus::Published] {
        let org = OrgId::new();
        let h = Harness::member().with_app(sample_app(org, status));
        let err = block_on(
            h.publishing()
                .publish(&member_as(&developer(), org, OrgRole::Member), &package()),
        )
        .unwrap_err();
        assert!(matches!(err, AppError::IllegalTransition(_)), "{status:?}");
        assert_eq!(err.code(), "ILLEGAL_TRANSITION");
    }
}

#[test]
fn a_publish_that_loses_a_race_is_a_conflict() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Development));
    h.orgs = complete_profile();
    h.apps
        .expect_transition()
        .returning(|_, _, _, _| Err(RepoError::Conflict("status".into())));
    let err = block_on(
        h.publishing()
            .publish(&member_as(&developer(), org, OrgRole::Member), &package()),
    )
    .unwrap_err();
    assert!(matches!(err, AppError::Conflict));
}

// ---- sharing ----

#[test]
fn the_first_share_link_request_creates_the_token() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Development));
    h.apps.expect_share_token().returning(|_, _| Ok(None));
    h.apps
        .expect_create_share_token()
        .withf(|_, _, token, _| token == "11".repeat(32))
        .times(1)
        .returning(|_, _, token, _| Ok(token.to_owned()));
    let link = block_on(
        h.publishing()
            .share_link(&member_as(&developer(), org, OrgRole::Member), &package()),
    )
    .unwrap();
    assert_eq!(
        link.install_url,
        format!("https://store.example.com/install/{}", "11".repeat(32))
    );
}

#[test]
fn an_existing_share_token_is_reused() {
    let org = OrgId::new();
    let mut h = Harness::member().with_app(sample_app(org, AppStoreStatus::Published));
    h.apps
        .expect_share_token()
        .returning(|_, _| Ok(Some("abc".into())));
    let link = block_on(
        h.publishing()
            .share_link(&member_as(&developer(), org, OrgRole::Member), &package()),
    )
    .unwrap();
    assert_eq!(link.install_url, "https://store.example.com/install/abc");
    assert_eq!(
        serde_json::to_value(&link).unwrap()["installUrl"],
        link.install_url
    );
}

#[test]
fn tester_emails_are_stored_validated_and_de_duplicated() {
    let org = OrgId::new();
    let mut h = Harness::member();
    h.apps
        .expect_set_share_emails()
        .withf(|_, _, emails, _, audit| {
            emails.len() == 1
                && emails[0].as_str() == "t@example.com"
                && audit.action == AuditAction::AppSharingChanged
                && audit.changes.len() == 1
                && audit.changes[0].field == "sharedWithEmailsCount"
                && (audit.changes[0].old.clone(), audit.changes[0].new.clone())
                    == (serde_json::json!(2), serde_json::json!(1))
                && ["t@example.com", "old1@example.com", "old2@example.com"]
                    .iter()
                    .all(|tester| !serde_json::to_string(audit).unwrap_or_default().contains(tester))
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let mut current = sample_app(org, AppStoreStatus::Development);
    current.shared_with_emails = vec![
        EmailAddress::parse("old1@example.com").unwrap(),
        EmailAddress::parse("old2@example.com").unwrap(),
    ];
    let h = h.with_app(current);
    let raw = ["t@example.com".to_owned(), "T@Example.com".to_owned()];
    let saved = block_on(h.publishing().set_share_emails(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        &raw,
    ))
    .unwrap();
    assert_eq!(saved.len(), 1);
}

#[test]
fn an_invalid_tester_email_is_refused_on_the_emails_field() {
    let err = block_on(Harness::member().publishing().set_share_emails(
        &member_as(&developer(), OrgId::new(), OrgRole::Member),
        &package(),
        &["nope".to_owned()],
    ))
    .unwrap_err();
    assert!(err.fields().unwrap()["emails"].starts_with("Please enter a valid email address"));
}

#[test]
fn a_malformed_share_token_is_not_found_without_a_lookup() {
    let err = block_on(Harness::member().publishing().shared_app("../etc")).unwrap_err();
    assert!(matches!(err, AppError::NotFound));
}

#[test]
fn a_tester_link_shows_the_app_but_nothing_about_the_org_reviewers_or_other_testers() {
    let mut h = Harness::member();
    h.apps.expect_find_by_share_token().times(1).returning(|_| {
        let mut app = sample_app(OrgId::new(), AppStoreStatus::Rejected);
        app.review_notes = Some("internal notes".into());
        app.reviewed_by = Some("reviewer@example.com".into());
        app.shared_with_emails = vec![EmailAddress::parse("tester@example.com").unwrap()];
        Ok(Some(app))
    });
    let view = block_on(h.publishing().shared_app(&"ab".repeat(32))).unwrap();
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["packageName"], package().as_str());
    for hidden in [
        "orgId",
        "developerId",
        "reviewNotes",
        "reviewedBy",
        "sharedWithEmails",
        "appStoreStatus",
    ] {
        assert!(
            json.get(hidden).is_none(),
            "{hidden} must not be shown to testers"
        );
    }
    assert!(!json.to_string().contains("tester@example.com"));
}

#[test]
fn visibility_is_written_for_the_organizations_app() {
    let org = OrgId::new();
    let mut h = Harness::member();
    h.apps
        .expect_set_visibility()
        .with(eq(org), eq(package()), eq(true), eq(noon()), always())
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let mut shared = sample_app(org, AppStoreStatus::Development);
    shared.shared_with_organization = true;
    let h = h.with_app(shared);
    let app = block_on(h.publishing().set_visibility(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        true,
    ))
    .unwrap();
    assert!(app.shared_with_organization);
}

#[test]
fn resetting_the_share_link_stores_a_new_token_and_answers_its_link() {
    let org = OrgId::new();
    let mut h = Harness::member();
    h.apps
        .expect_replace_share_token()
        .withf(move |o, p, token, at, _| {
            *o == org && *p == package() && token == "11".repeat(32) && *at == noon()
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let link = block_on(
        h.publishing()
            .reset_share_link(&member_as(&developer(), org, OrgRole::Member), &package()),
    )
    .unwrap();
    assert_eq!(
        link.install_url,
        format!("https://store.example.com/install/{}", "11".repeat(32))
    );
}

#[test]
fn resetting_the_share_link_of_an_unknown_app_is_not_found() {
    let org = OrgId::new();
    let mut h = Harness::member();
    h.apps
        .expect_replace_share_token()
        .returning(|_, _, _, _, _| Err(RepoError::NotFound));
    let err = block_on(
        h.publishing()
            .reset_share_link(&member_as(&developer(), org, OrgRole::Member), &package()),
    )
    .unwrap_err();
    assert!(matches!(err, AppError::NotFound));
}

// ---- move ----

#[test]
fn a_move_needs_a_target_organization() {
    let err = block_on(Harness::member().publishing().move_to(
        &member_as(&developer(), OrgId::new(), OrgRole::Member),
        &package(),
        None,
    ))
    .unwrap_err();
    assert_eq!(err.to_string(), "Please select a target organization");
}

#[test]
fn a_move_to_the_same_organization_is_refused() {
    let org = OrgId::new();
    let err = block_on(Harness::member().publishing().move_to(
        &member_as(&developer(), org, OrgRole::Member),
        &package(),
        Some(org),
    ))
    .unwrap_err();
    assert!(matches!(err, AppError::SameOrganization));
}

#[test]
fn a_member_of_the_source_cannot_move_an_app_out() {
    let (from, to) = (OrgId::new(), OrgId::new());
    let mut h = Harness::member();
    h.members = members_by_org(vec![(from, OrgRole::Member), (to, OrgRole::Admin)]);
    let err = block_on(h.publishing().move_to(
        &member_as(&developer(), from, OrgRole::Member),
        &package(),
        Some(to),
    ))
    .unwrap_err();
    assert!(matches!(err, AppError::AdminOnly));
}

#[test]
fn a_move_to_an_organization_the_caller_is_not_in_is_refused() {
    let (from, to) = (OrgId::new(), OrgId::new());
    let mut h = Harness::member();
    h.members = members_by_org(vec![(from, OrgRole::Admin)]);
    let err = block_on(h.publishing().move_to(
        &member_as(&developer(), from, OrgRole::Admin),
        &package(),
        Some(to),
    ))
    .unwrap_err();
    assert!(matches!(err, AppError::NotMemberOfTarget));
}

#[test]
fn a_move_into_an_organization_requiring_a_second_factor_needs_a_session_that_passed_one() {
    let (from, to) = (OrgId::new(), OrgId::new());
    let mut h = Harness::member().with_app(sample_app(from, AppStoreStatus::Development));
    h.members = MockMemberDirectory::new();
    h.members.expect_standing_of().returning(move |org, _| {
        Ok(Some(crate::orgs::MemberStanding {
            role: OrgRole::Admin,
            org_requires_two_factor: org == to,
        }))
    });
    h.apps.expect_move_app().never();
    // The source's door let the admin in (the source requires nothing); the target refuses the session.
    let mut source = MockMemberDirectory::new();
    source.expect_standing_of().returning(|_, _| {
        Ok(Some(crate::orgs::MemberStanding {
            role: OrgRole::Admin,
            org_requires_two_factor: false,
        }))
    });
    let admin = block_on(ActingMember::resolve(
        crate::orgs::StandingSource::Directory(&source, from),
        developer(),
        crate::orgs::SecondFactor::NotPassed,
        crate::orgs::Door::Act,
    ))
    .unwrap()
    .unwrap();
    let err = block_on(h.publishing().move_to(&admin, &package(), Some(to))).unwrap_err();
    assert!(matches!(err, AppError::TargetRequiresSecondFactor), "{err:?}");
    assert_eq!(err.code(), "ORG_MFA_REQUIRED");
}

#[test]
fn a_moved_app_keeps_its_status_and_the_move_is_recorded_in_the_target() {
    let (from, to) = (OrgId::new(), OrgId::new());
    let mut h = Harness::member().with_app(sample_app(from, AppStoreStatus::Published));
    h.members = members_by_org(vec![(from, OrgRole::Admin), (to, OrgRole::Member)]);
    h.apps
        .expect_move_app()
        .withf(move |f, t, _, event, _| {
            *f == from
                && *t == to
                && event.kind == ReviewEventKind::Moved
                && event.org_id == to
                && event.detail
                    == Some(serde_json::json!({"fromOrgId": from.to_string(), "toOrgId": to.to_string()}))
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let app = block_on(h.publishing().move_to(
        &member_as(&developer(), from, OrgRole::Admin),
        &package(),
        Some(to),
    ))
    .unwrap();
    assert_eq!(
        (app.org_id, app.app_store_status),
        (to, AppStoreStatus::Published)
    );
}

#[test]
fn errors_without_fields_carry_no_field_map() {
    assert_eq!(AppError::NotFound.fields(), None);
    assert_eq!(AppError::AdminOnly.code(), "FORBIDDEN");
}
