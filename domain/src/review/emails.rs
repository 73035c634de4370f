//! The e-mails sent to an organization's contact when a reviewer decides on its app.

use crate::apps::App;
use crate::common::EmailAddress;
use crate::mail::templates::one_line;
use crate::mail::{EmailKind, OutgoingEmail};

/// The app's edit page in the portal, where the developer sees the status and the notes.
#[must_use]
pub fn app_link(portal_url: &str, app: &App) -> String {
    format!(
        "{}/apps/{}/edit",
        portal_url.trim_end_matches('/'),
        app.package_name
    )
}

/// "Your app … has been approved".
#[must_use]
pub fn approved_email(to: EmailAddress, app: &App, notes: Option<&str>, portal_url: &str) -> OutgoingEmail {
    let name = one_line(&app.name);
    let link = app_link(portal_url, app);
    let notes = notes
        .map(|n| format!("Reviewer notes:\n{n}\n\n"))
        .unwrap_or_default();
    OutgoingEmail {
        kind: EmailKind::AppApproved,
        to,
        subject: format!("Your app {name} has been approved"),
        text: format!(
            "Good news! Your app \"{name}\" ({}) has been approved and is now published in the app store.\n\n\
             {notes}View your app: {link}\n",
            app.package_name
        ),
        link: Some(link),
    }
}

/// "Your app … was not approved", with the reviewer's notes.
#[must_use]
pub fn rejected_email(to: EmailAddress, app: &App, notes: &str, portal_url: &str) -> OutgoingEmail {
    let name = one_line(&app.name);
    let link = app_link(portal_url, app);
    OutgoingEmail {
        kind: EmailKind::AppRejected,
        to,
        subject: format!("Your app {name} was not approved"),
        text: format!(
            "Your app \"{name}\" ({}) was reviewed and was not approved yet.\n\n\
             Reviewer notes:\n{notes}\n\n\
             Please address the notes, then resubmit it from the app's page: {link}\n",
            app.package_name
        ),
        link: Some(link),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::AppStoreStatus;
    use crate::apps::service::fixtures::sample_app;
    use crate::common::OrgId;

    fn contact() -> EmailAddress {
        EmailAddress::parse("ops@acme.example").unwrap()
    }

    #[test]
    fn the_approval_email_links_to_the_apps_page_and_quotes_notes_when_given() {
        let app = sample_app(OrgId::new(), AppStoreStatus::Published);
        let email = approved_email(contact(), &app, Some("Nice work"), "https://portal.example.com/");
        assert_eq!(email.kind, EmailKind::AppApproved);
        assert_eq!(email.subject, "Your app Notes has been approved");
        assert_eq!(
            email.link.as_deref(),
            Some("https://portal.example.com/apps/com.example.notes/edit")
        );
        assert!(email.text.contains("Reviewer notes:\nNice work"));
        let plain = approved_email(contact(), &app, None, "https://portal.example.com");
        assert!(!plain.text.contains("Reviewer notes"));
    }

    #[test]
    fn the_rejection_email_carries_the_notes() {
        let app = sample_app(OrgId::new(), AppStoreStatus::Rejected);
        let email = rejected_email(
            contact(),
            &app,
            "Add a privacy policy",
            "https://portal.example.com",
        );
        assert_eq!(email.kind, EmailKind::AppRejected);
        assert_eq!(email.to, contact());
        assert!(email.text.contains("Add a privacy policy"));
        assert!(email.text.contains("resubmit"));
    }

    #[test]
    fn an_app_name_cannot_break_the_subject_line() {
        let mut app = sample_app(OrgId::new(), AppStoreStatus::Submitted);
        app.name = "Evil\r\nBcc: x@y.z".into();
        let email = rejected_email(contact(), &app, "no", "https://portal.example.com");
        assert!(!email.subject.contains('\n') && !email.subject.contains('\r'));
    }
}
