//! The events a webhook endpoint can subscribe to: one list, the only place an event type is spelled. The
//! OpenAPI document and the browser's checklist read it from here; a type is never renamed once released.

use crate::common::code_enum;

code_enum! {
    /// What a webhook delivery tells (issue 38, PRODUCT.md §10).
    #[derive(PartialOrd, Ord)]
    pub enum WebhookEventType: "A webhook event type (the list of `domain::webhooks::events`)" {
        /// An app was submitted for review.
        AppSubmitted => "app.submitted",
        /// A reviewer approved an app.
        AppApproved => "app.approved",
        /// A reviewer rejected an app (with the reviewer's notes).
        AppRejected => "app.rejected",
        /// Whether an app is published in the store changed (approved, or sent back to review).
        AppPublishedChanged => "app.published_changed",
        /// The uptime monitor found an app's server offline.
        AppOffline => "app.offline",
        /// An app's server answers again after being offline.
        AppOnline => "app.online",
        /// An app's API key was replaced (the key itself is never sent).
        AppKeyRegenerated => "app.key_regenerated",
        /// Someone joined the organization.
        MemberJoined => "member.joined",
        /// A member was removed from the organization, or left it.
        MemberRemoved => "member.removed",
        /// A member's role changed.
        MemberRoleChanged => "member.role_changed",
        /// An invitation to the organization was accepted.
        InvitationAccepted => "invitation.accepted",
        /// A test sent from the Webhooks page (never subscribed to: every endpoint receives its own tests).
        Test => "webhook.test",
    }
}

impl WebhookEventType {
    /// The types an endpoint may choose from: every type except [`WebhookEventType::Test`].
    pub fn subscribable() -> impl Iterator<Item = Self> {
        Self::ALL.iter().copied().filter(|t| *t != Self::Test)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_parses_back_and_is_unique() {
        let mut seen = std::collections::HashSet::new();
        for event in WebhookEventType::ALL {
            assert_eq!(WebhookEventType::parse(event.code()), Some(*event));
            assert!(seen.insert(event.code()), "{} twice", event.code());
            assert_eq!(
                serde_json::to_value(event).unwrap(),
                serde_json::json!(event.code())
            );
        }
        assert_eq!(WebhookEventType::parse("app.renamed"), None);
    }

    #[test]
    fn the_issue_s_events_are_the_subscribable_list() {
        let codes: Vec<&str> = WebhookEventType::subscribable()
            .map(WebhookEventType::code)
            .collect();
        assert_eq!(
            codes,
            [
                "app.submitted",
                "app.approved",
                "app.rejected",
                "app.published_changed",
                "app.offline",
                "app.online",
                "app.key_regenerated",
                "member.joined",
                "member.removed",
                "member.role_changed",
                "invitation.accepted",
            ]
        );
    }
}
