//! The events of a change, built from the audit entry the change writes (so that the entry and the events
//! are made in one place and committed in one transaction), and the body a delivery sends:
//! `{"type", "timestamp", "data"}` with ids, names and a link into the portal, never a secret.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::WebhookEventType;
use super::ids::WebhookEndpointId;
use crate::apps::AppStoreStatus;
use crate::audit::{AuditAction, AuditEntry};
use crate::common::OrgId;

/// Where in the portal an event's link points (a path; the body makes it absolute with
/// `PORTAL_PUBLIC_URL`).
pub mod links {
    /// An app's page.
    #[must_use]
    pub fn app(package: &str) -> String {
        format!(
            "/apps/{}/edit",
            url::form_urlencoded::byte_serialize(package.as_bytes()).collect::<String>()
        )
    }
    /// The organization's members.
    pub const MEMBERS: &str = "/members";
    /// The organization's webhooks.
    pub const WEBHOOKS: &str = "/org-settings/webhooks";
}

/// An event waiting to be queued for an organization's endpoints.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookEvent {
    pub event_type: WebhookEventType,
    pub org_id: OrgId,
    pub at: DateTime<Utc>,
    /// The payload's `data`; its `link` is a path of the portal until [`render_body`] makes it absolute.
    pub data: Value,
}

/// What the adapter reads in the change's transaction for the payload: the app's current name.
#[derive(Debug, Clone, Default)]
pub struct EventNames {
    pub app_name: Option<String>,
}

fn change<'a>(entry: &'a AuditEntry, field: &str) -> Option<(&'a Value, &'a Value)> {
    entry
        .changes
        .iter()
        .find(|c| c.field == field)
        .map(|c| (&c.old, &c.new))
}

fn is_published(value: &Value) -> bool {
    value.as_str() == Some(AppStoreStatus::Published.code())
}

fn app_data(org: OrgId, package: &str, names: &EventNames) -> Map<String, Value> {
    let mut data = Map::new();
    data.insert("organizationId".into(), json!(org.to_string()));
    data.insert(
        "app".into(),
        json!({"packageName": package, "name": names.app_name}),
    );
    data.insert("link".into(), json!(links::app(package)));
    data
}

/// What an audit action sends to the organization's webhook endpoints: the one place where a recorded
/// change is decided to notify anyone (the adapter records the entry and queues these events in one
/// transaction: `record_and_queue_events`). Exhaustive by construction: a new [`AuditAction`] does not
/// compile until it is given its events here, or `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionEvents {
    /// No event of its own (a change of an app's store status still sends `app.published_changed`).
    None,
    /// `app.submitted`.
    AppSubmitted,
    /// `app.approved` or `app.rejected`, with the reviewer's notes.
    ReviewDecided,
    /// `app.key_regenerated`.
    AppKeyRegenerated,
    /// `member.joined` and `invitation.accepted`.
    MemberJoined,
    /// `member.removed` (removed or left).
    MemberGone,
    /// `member.role_changed`.
    MemberRoleChanged,
}

impl ActionEvents {
    /// The events of `action`.
    #[must_use]
    pub const fn of(action: AuditAction) -> Self {
        use AuditAction as A;
        match action {
            A::AppPublished => Self::AppSubmitted,
            A::ReviewApproved | A::ReviewRejected => Self::ReviewDecided,
            A::AppKeyRegenerated => Self::AppKeyRegenerated,
            A::InviteAccepted => Self::MemberJoined,
            A::MemberRemoved | A::MemberLeft => Self::MemberGone,
            A::MemberRoleChanged => Self::MemberRoleChanged,
            A::AppCreated
            | A::AppUpdated
            | A::AppDeleted
            | A::AppMoved
            | A::AppVisibilityChanged
            | A::AppSharingChanged
            | A::AppPermissionsChanged
            | A::AppShareLinkReset
            | A::OrgCreated
            | A::OrgUpdated
            | A::OrgDeleted
            | A::InviteSent
            | A::InviteResent
            | A::InviteRescinded
            | A::PlatformRoleGranted
            | A::PlatformRoleRevoked
            | A::PlatformFirstAdmin
            | A::ImageUploaded
            | A::ImageDeleted
            | A::AccessTokenCreated
            | A::AccessTokenRevoked
            | A::AccessTokenExpired
            | A::WebhookCreated
            | A::WebhookUpdated
            | A::WebhookDeleted
            | A::WebhookSecretRotated
            | A::WebhookDisabled => Self::None,
        }
    }

    /// The event types these events are sent as.
    #[must_use]
    pub const fn types(self) -> &'static [WebhookEventType] {
        match self {
            Self::None => &[],
            Self::AppSubmitted => &[WebhookEventType::AppSubmitted],
            Self::ReviewDecided => &[WebhookEventType::AppApproved, WebhookEventType::AppRejected],
            Self::AppKeyRegenerated => &[WebhookEventType::AppKeyRegenerated],
            Self::MemberJoined => &[
                WebhookEventType::MemberJoined,
                WebhookEventType::InvitationAccepted,
            ],
            Self::MemberGone => &[WebhookEventType::MemberRemoved],
            Self::MemberRoleChanged => &[WebhookEventType::MemberRoleChanged],
        }
    }
}

/// Whether the change recorded by `entry` may cause an event (the adapter reads names only for these): an
/// action that has events of its own ([`ActionEvents::of`]), or any change of an app's store status (an edit
/// that adds a permission sends a published app back to review: `app.published_changed`).
#[must_use]
pub fn may_cause_events(entry: &AuditEntry) -> bool {
    ActionEvents::of(entry.action) != ActionEvents::None || change(entry, "appStoreStatus").is_some()
}

/// The events a change recorded by `entry` causes (none for most changes, and none outside an
/// organization).
#[must_use]
pub fn events_of(entry: &AuditEntry, names: &EventNames) -> Vec<WebhookEvent> {
    let Some(org) = entry.org_id else {
        return Vec::new();
    };
    if !may_cause_events(entry) {
        return Vec::new();
    }
    let target_id = entry.target.as_ref().map(|t| t.id.clone()).unwrap_or_default();
    let target_label = entry.target.as_ref().and_then(|t| t.label.clone());
    let event = |event_type, data: Map<String, Value>| WebhookEvent {
        event_type,
        org_id: org,
        at: entry.at,
        data: Value::Object(data),
    };
    let mut events = Vec::new();
    let status = change(entry, "appStoreStatus");
    match ActionEvents::of(entry.action) {
        ActionEvents::None => {}
        ActionEvents::AppSubmitted => {
            let mut data = app_data(org, &target_id, names);
            if let Some((_, new)) = status {
                data.insert("appStoreStatus".into(), new.clone());
            }
            events.push(event(WebhookEventType::AppSubmitted, data));
        }
        ActionEvents::ReviewDecided => {
            let mut data = app_data(org, &target_id, names);
            let notes = change(entry, "reviewNotes").map_or(Value::Null, |(_, new)| new.clone());
            data.insert("reviewNotes".into(), notes);
            let kind = if entry.action == AuditAction::ReviewApproved {
                WebhookEventType::AppApproved
            } else {
                WebhookEventType::AppRejected
            };
            events.push(event(kind, data));
        }
        ActionEvents::AppKeyRegenerated => {
            events.push(event(
                WebhookEventType::AppKeyRegenerated,
                app_data(org, &target_id, names),
            ));
        }
        ActionEvents::MemberJoined => {
            let role = change(entry, "role").map_or(Value::Null, |(_, new)| new.clone());
            let member = json!({
                "id": entry.actor_id.map(|id| id.to_string()),
                "email": entry.actor_email,
            });
            let mut joined = Map::new();
            joined.insert("organizationId".into(), json!(org.to_string()));
            joined.insert("member".into(), member.clone());
            joined.insert("role".into(), role.clone());
            joined.insert("link".into(), json!(links::MEMBERS));
            events.push(event(WebhookEventType::MemberJoined, joined));
            let mut accepted = Map::new();
            accepted.insert("organizationId".into(), json!(org.to_string()));
            accepted.insert(
                "invitation".into(),
                json!({"id": target_id, "email": target_label}),
            );
            accepted.insert("member".into(), member);
            accepted.insert("role".into(), role);
            accepted.insert("link".into(), json!(links::MEMBERS));
            events.push(event(WebhookEventType::InvitationAccepted, accepted));
        }
        ActionEvents::MemberGone | ActionEvents::MemberRoleChanged => {
            let mut data = Map::new();
            data.insert("organizationId".into(), json!(org.to_string()));
            data.insert("member".into(), json!({"id": target_id, "email": target_label}));
            let kind = if entry.action == AuditAction::MemberRoleChanged {
                let (old, new) =
                    change(entry, "role").map_or((Value::Null, Value::Null), |(o, n)| (o.clone(), n.clone()));
                data.insert("previousRole".into(), old);
                data.insert("role".into(), new);
                WebhookEventType::MemberRoleChanged
            } else {
                let left = entry.action == AuditAction::MemberLeft;
                data.insert("reason".into(), json!(if left { "left" } else { "removed" }));
                WebhookEventType::MemberRemoved
            };
            data.insert("link".into(), json!(links::MEMBERS));
            events.push(event(kind, data));
        }
    }
    if let Some((old, new)) = status
        && is_published(old) != is_published(new)
    {
        let mut data = app_data(org, &target_id, names);
        data.insert("published".into(), json!(is_published(new)));
        data.insert("appStoreStatus".into(), new.clone());
        events.push(event(WebhookEventType::AppPublishedChanged, data));
    }
    events
}

/// `app.offline` or `app.online` for an app of `org`, as the uptime monitor saw it at `at`.
#[must_use]
pub fn app_health_event(
    org: OrgId,
    package: &str,
    name: Option<String>,
    online: bool,
    at: DateTime<Utc>,
) -> WebhookEvent {
    let names = EventNames { app_name: name };
    let mut data = app_data(org, package, &names);
    data.insert("online".into(), json!(online));
    WebhookEvent {
        event_type: if online {
            WebhookEventType::AppOnline
        } else {
            WebhookEventType::AppOffline
        },
        org_id: org,
        at,
        data: Value::Object(data),
    }
}

/// The `webhook.test` event an admin sends to one endpoint.
#[must_use]
pub fn test_event(org: OrgId, endpoint: WebhookEndpointId, at: DateTime<Utc>) -> WebhookEvent {
    WebhookEvent {
        event_type: WebhookEventType::Test,
        org_id: org,
        at,
        data: json!({
            "organizationId": org.to_string(),
            "endpointId": endpoint.to_string(),
            "message": "This is a test delivery from the developer portal.",
            "link": links::WEBHOOKS,
        }),
    }
}

/// The request body of `event`: `{"type", "timestamp", "data"}`, with `data.link` made absolute under
/// `public_url` (the portal's address, `PORTAL_PUBLIC_URL`).
#[must_use]
pub fn render_body(event: &WebhookEvent, public_url: &str) -> String {
    let mut data = event.data.clone();
    if let Some(link) = data.get_mut("link")
        && let Some(path) = link.as_str()
        && path.starts_with('/')
    {
        *link = json!(format!("{}{path}", public_url.trim_end_matches('/')));
    }
    json!({
        "type": event.event_type.code(),
        "timestamp": event.at.to_rfc3339_opts(SecondsFormat::Millis, true),
        "data": data,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::PackageName;
    use crate::audit::AuditTarget;
    use crate::common::{Caller, ClientOrigin, EmailAddress, InviteId, UserId};

    fn caller() -> Caller {
        Caller {
            user_id: UserId::new(),
            email: EmailAddress::parse("ada@example.com").unwrap(),
            platform_role: None,
            origin: ClientOrigin::default(),
        }
    }
    use crate::testing::{RepeatingBytes, noon};

    fn entry(action: AuditAction, org: OrgId) -> AuditEntry {
        AuditEntry::by(&RepeatingBytes(3), &caller(), action, noon()).in_org(org)
    }

    fn package() -> PackageName {
        PackageName::parse("com.example.glow").unwrap()
    }

    fn names() -> EventNames {
        EventNames {
            app_name: Some("Glow".into()),
        }
    }

    fn types(events: &[WebhookEvent]) -> Vec<&'static str> {
        events.iter().map(|e| e.event_type.code()).collect()
    }

    #[test]
    fn an_approval_is_approved_and_published_with_the_notes() {
        let org = OrgId::new();
        let audit = entry(AuditAction::ReviewApproved, org)
            .on(AuditTarget::app(&package()))
            .change("appStoreStatus", "SUBMITTED", "PUBLISHED")
            .change("reviewNotes", Value::Null, "Lovely");
        let events = events_of(&audit, &names());
        assert_eq!(types(&events), ["app.approved", "app.published_changed"]);
        assert_eq!(events[0].data["reviewNotes"], "Lovely");
        assert_eq!(
            events[0].data["app"],
            json!({"packageName": "com.example.glow", "name": "Glow"})
        );
        assert_eq!(events[1].data["published"], true);
        assert!(events.iter().all(|e| e.org_id == org && e.at == noon()));
    }

    #[test]
    fn a_rejection_carries_the_reviewer_s_notes() {
        let audit = entry(AuditAction::ReviewRejected, OrgId::new())
            .on(AuditTarget::app(&package()))
            .change("appStoreStatus", "SUBMITTED", "REJECTED")
            .change("reviewNotes", Value::Null, "Needs a privacy policy");
        let events = events_of(&audit, &names());
        assert_eq!(types(&events), ["app.rejected"]);
        assert_eq!(events[0].data["reviewNotes"], "Needs a privacy policy");
    }

    #[test]
    fn resubmitting_a_published_app_unpublishes_it() {
        let audit = entry(AuditAction::AppPublished, OrgId::new())
            .on(AuditTarget::app(&package()))
            .change("appStoreStatus", "PUBLISHED", "SUBMITTED");
        let events = events_of(&audit, &names());
        assert_eq!(types(&events), ["app.submitted", "app.published_changed"]);
        assert_eq!(events[1].data["published"], false);
        let first = entry(AuditAction::AppPublished, OrgId::new())
            .on(AuditTarget::app(&package()))
            .change("appStoreStatus", "DEVELOPMENT", "SUBMITTED");
        assert_eq!(types(&events_of(&first, &names())), ["app.submitted"]);
    }

    #[test]
    fn an_accepted_invitation_is_a_joined_member_too() {
        let audit = entry(AuditAction::InviteAccepted, OrgId::new())
            .on(AuditTarget::invitation(InviteId::new(), "ada@example.com"))
            .change("role", Value::Null, "member");
        let events = events_of(&audit, &EventNames::default());
        assert_eq!(types(&events), ["member.joined", "invitation.accepted"]);
        assert_eq!(events[0].data["member"]["email"], "ada@example.com");
        assert_eq!(events[1].data["invitation"]["email"], "ada@example.com");
        assert_eq!(events[1].data["role"], "member");
    }

    #[test]
    fn member_changes_name_the_member_and_roles() {
        let org = OrgId::new();
        let member = UserId::new();
        let target = AuditTarget::member(member).with_label("bob@example.com");
        let role = entry(AuditAction::MemberRoleChanged, org)
            .on(target.clone())
            .change("role", "member", "admin");
        let events = events_of(&role, &EventNames::default());
        assert_eq!(types(&events), ["member.role_changed"]);
        assert_eq!(events[0].data["previousRole"], "member");
        assert_eq!(events[0].data["role"], "admin");
        assert_eq!(events[0].data["member"]["id"], member.to_string());
        let left = entry(AuditAction::MemberLeft, org).on(target.clone());
        assert_eq!(events_of(&left, &EventNames::default())[0].data["reason"], "left");
        let removed = entry(AuditAction::MemberRemoved, org).on(target);
        assert_eq!(
            events_of(&removed, &EventNames::default())[0].data["reason"],
            "removed"
        );
    }

    #[test]
    fn an_edit_that_sends_a_published_app_back_to_review_unpublishes_it() {
        let org = OrgId::new();
        for action in [AuditAction::AppPermissionsChanged, AuditAction::AppUpdated] {
            let audit = entry(action, org)
                .on(AuditTarget::app(&package()))
                .change("permissions", json!(["CAMERA"]), json!(["CAMERA", "LOCATION"]))
                .change("appStoreStatus", "PUBLISHED", "SUBMITTED");
            assert!(may_cause_events(&audit));
            let events = events_of(&audit, &names());
            assert_eq!(types(&events), ["app.published_changed"], "{action}");
            assert_eq!(events[0].data["published"], false);
            assert_eq!(events[0].data["appStoreStatus"], "SUBMITTED");
            assert_eq!(events[0].data["link"], "/apps/com.example.glow/edit");
        }
        // An edit that keeps the status reads nothing for events.
        let edit = entry(AuditAction::AppPermissionsChanged, org)
            .on(AuditTarget::app(&package()))
            .change("permissions", json!([]), json!(["CAMERA"]));
        assert!(!may_cause_events(&edit));
    }

    #[test]
    fn most_changes_and_platform_entries_cause_no_event() {
        let edit = entry(AuditAction::AppUpdated, OrgId::new()).on(AuditTarget::app(&package()));
        assert!(events_of(&edit, &names()).is_empty());
        let platform = AuditEntry::by(&RepeatingBytes(3), &caller(), AuditAction::ReviewApproved, noon());
        assert!(events_of(&platform, &names()).is_empty());
    }

    #[test]
    fn the_body_is_type_timestamp_and_data_with_an_absolute_link() {
        let org = OrgId::new();
        let event = app_health_event(org, "com.example.glow", Some("Glow".into()), false, noon());
        let body: Value = serde_json::from_str(&render_body(&event, "https://portal.example.com/")).unwrap();
        assert_eq!(body["type"], "app.offline");
        assert_eq!(body["timestamp"], "2026-03-15T12:00:00.000Z");
        assert_eq!(
            body["data"]["link"],
            "https://portal.example.com/apps/com.example.glow/edit"
        );
        assert_eq!(body["data"]["online"], false);
        let test = test_event(org, WebhookEndpointId(uuid::Uuid::nil()), noon());
        let body: Value = serde_json::from_str(&render_body(&test, "http://127.0.0.1:8080")).unwrap();
        assert_eq!(body["type"], "webhook.test");
        assert_eq!(
            body["data"]["link"],
            "http://127.0.0.1:8080/org-settings/webhooks"
        );
    }

    #[test]
    fn every_event_a_payload_names_is_in_the_list() {
        let mut built = std::collections::BTreeSet::new();
        let org = OrgId::new();
        for action in AuditAction::ALL {
            let audit = entry(*action, org).on(AuditTarget::app(&package())).change(
                "appStoreStatus",
                "SUBMITTED",
                "PUBLISHED",
            );
            built.extend(events_of(&audit, &names()).into_iter().map(|e| e.event_type));
        }
        built.insert(app_health_event(org, "a.b", None, true, noon()).event_type);
        built.insert(app_health_event(org, "a.b", None, false, noon()).event_type);
        built.insert(test_event(org, WebhookEndpointId(uuid::Uuid::nil()), noon()).event_type);
        assert_eq!(built.into_iter().collect::<Vec<_>>(), WebhookEventType::ALL);
    }

    #[test]
    fn each_action_sends_only_the_types_its_mapping_names() {
        let org = OrgId::new();
        for action in AuditAction::ALL {
            let declared = ActionEvents::of(*action).types();
            let audit = entry(*action, org).on(AuditTarget::app(&package()));
            for event in events_of(&audit, &names()) {
                assert!(
                    declared.contains(&event.event_type),
                    "{}: sends {} that ActionEvents does not name",
                    action.code(),
                    event.event_type.code()
                );
            }
            assert_eq!(
                may_cause_events(&audit),
                !declared.is_empty(),
                "{}: whether the adapter reads names follows the mapping",
                action.code()
            );
        }
    }
}
