//! The text of every e-mail the portal sends: a clear subject and a plain-text body, rendered into an
//! [`OutgoingEmail`] ready for the outbox.
//!
//! Bodies are plain text, so nothing is escaped; but values that came from users (organization and app
//! names) are put on one line in subjects, so that they cannot add header lines. No secret other than the
//! link the e-mail is about is ever included.

use chrono::{DateTime, Utc};

use super::{EmailKind, OutgoingEmail};
use crate::common::EmailAddress;
use crate::membership::OrgRole;

/// The product's name as the e-mails write it.
pub const PRODUCT_NAME: &str = "Developer Portal";

/// Longest user-provided value placed in a subject (characters).
const MAX_SUBJECT_VALUE: usize = 120;

/// A user-provided value made safe for a subject line: line breaks and other control characters become
/// spaces, runs of white space collapse, and it is cut at 120 characters. Every subject that carries a
/// user-provided value goes through it, so no value can add a header line.
pub(crate) fn one_line(value: &str) -> String {
    let cleaned: String = value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let collapsed = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed.chars().take(MAX_SUBJECT_VALUE).collect()
}

fn format_instant(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

fn signature() -> String {
    format!("\n\n— The {PRODUCT_NAME} team\n")
}

fn ignore_note() -> &'static str {
    "If you did not ask for this, you can ignore this e-mail."
}

fn email(
    kind: EmailKind,
    to: &EmailAddress,
    subject: String,
    body: String,
    link: Option<&str>,
) -> OutgoingEmail {
    OutgoingEmail {
        kind,
        to: to.clone(),
        subject,
        text: format!("{body}{}", signature()),
        link: link.map(str::to_owned),
    }
}

/// Sign-up confirmation: the link confirms the address; valid for `valid_minutes`.
#[must_use]
pub fn confirm_signup(to: &EmailAddress, link: &str, valid_minutes: u32) -> OutgoingEmail {
    let body = format!(
        "Welcome to the {PRODUCT_NAME}!\n\nConfirm your e-mail address to finish creating your account:\n\n\
         {link}\n\nThis link works once and expires in {valid_minutes} minutes. {}",
        ignore_note()
    );
    email(
        EmailKind::ConfirmSignup,
        to,
        format!("Confirm your e-mail address for the {PRODUCT_NAME}"),
        body,
        Some(link),
    )
}

/// Password-less sign-in ("magic link"); valid for `valid_minutes`.
#[must_use]
pub fn magic_link(to: &EmailAddress, link: &str, valid_minutes: u32) -> OutgoingEmail {
    let body = format!(
        "Use this link to sign in to the {PRODUCT_NAME}:\n\n{link}\n\n\
         This link works once and expires in {valid_minutes} minutes. {}",
        ignore_note()
    );
    email(
        EmailKind::MagicLink,
        to,
        format!("Your sign-in link for the {PRODUCT_NAME}"),
        body,
        Some(link),
    )
}

/// Password recovery; valid for `valid_minutes`.
#[must_use]
pub fn password_recovery(to: &EmailAddress, link: &str, valid_minutes: u32) -> OutgoingEmail {
    let body = format!(
        "Someone asked to reset the password of your {PRODUCT_NAME} account.\n\n\
         Choose a new password here:\n\n{link}\n\nThis link works once and expires in {valid_minutes} minutes. \
         {} Your password stays unchanged.",
        ignore_note()
    );
    email(
        EmailKind::PasswordRecovery,
        to,
        format!("Reset your {PRODUCT_NAME} password"),
        body,
        Some(link),
    )
}

/// What an organization invitation says.
#[derive(Debug, Clone, Copy)]
pub struct OrgInviteMail<'a> {
    pub org_name: &'a str,
    /// The inviting admin's e-mail address.
    pub inviter: &'a EmailAddress,
    pub role: OrgRole,
    pub link: &'a str,
    pub expires_at: DateTime<Utc>,
}

fn role_description(role: OrgRole) -> &'static str {
    match role {
        OrgRole::Admin => "an admin (full control: managing members and apps)",
        OrgRole::Member => "a member (manage apps, but not the organization or its members)",
    }
}

/// An invitation to join an organization (sent on invite and on every resend).
#[must_use]
pub fn org_invite(to: &EmailAddress, invite: &OrgInviteMail<'_>) -> OutgoingEmail {
    let org = one_line(invite.org_name);
    let body = format!(
        "{inviter} invited you to join the organization \"{org}\" on the {PRODUCT_NAME} as {role}.\n\n\
         Accept the invitation here (sign in or create an account with this e-mail address, {to}):\n\n\
         {link}\n\nThe invitation expires on {expires}. If you were not expecting it, you can ignore this \
         e-mail.",
        inviter = invite.inviter,
        role = role_description(invite.role),
        link = invite.link,
        expires = format_instant(invite.expires_at),
    );
    email(
        EmailKind::OrgInvite,
        to,
        format!("You're invited to join {org} on the {PRODUCT_NAME}"),
        body,
        Some(invite.link),
    )
}

fn notes_paragraph(notes: Option<&str>, heading: &str) -> String {
    match notes.map(str::trim).filter(|n| !n.is_empty()) {
        Some(notes) => format!("\n\n{heading}:\n{notes}"),
        None => String::new(),
    }
}

/// The app was approved and is now published; the reviewer's notes are optional.
#[must_use]
pub fn app_approved(to: &EmailAddress, app_name: &str, notes: Option<&str>) -> OutgoingEmail {
    let app = one_line(app_name);
    let body = format!(
        "Good news: your app \"{app}\" was approved and is now published in the app store.{}",
        notes_paragraph(notes, "Reviewer notes")
    );
    email(
        EmailKind::AppApproved,
        to,
        format!("Your app {app} was approved"),
        body,
        None,
    )
}

/// The app was rejected; the reviewer's notes say why (required for a rejection).
#[must_use]
pub fn app_rejected(to: &EmailAddress, app_name: &str, notes: &str) -> OutgoingEmail {
    let app = one_line(app_name);
    let body = format!(
        "Your app \"{app}\" was not approved for the app store.{}\n\n\
         Address the notes, then resubmit the app from the {PRODUCT_NAME}.",
        notes_paragraph(Some(notes), "Reason")
    );
    email(
        EmailKind::AppRejected,
        to,
        format!("Your app {app} was not approved"),
        body,
        None,
    )
}

/// A change to how an account signs in, which its owner is told of by e-mail (PRODUCT.md §1a).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecurityChange<'a> {
    /// The password was changed (or set) while signed in.
    PasswordChanged,
    /// The password was chosen anew after a recovery link or code; the other sessions ended with the access
    /// tokens they made, and `tokens_left` names the account's access tokens that still work.
    PasswordReset { tokens_left: &'a [String] },
    /// A second factor (named) was added and confirmed.
    FactorAdded(&'a str),
    /// A second factor (named) was removed.
    FactorRemoved(&'a str),
    /// A passkey (named) was added.
    PasskeyAdded(&'a str),
    /// A passkey (named) was removed.
    PasskeyRemoved(&'a str),
    /// Every second factor was removed by an operator (`app-server factors reset`).
    FactorsReset,
    /// The account's other sessions were signed out.
    OtherSessionsSignedOut,
    /// A new set of recovery codes was made (the earlier codes no longer work).
    RecoveryCodesGenerated,
    /// A recovery code was used to pass the second step of a sign-in; `remaining` codes are left.
    RecoveryCodeUsed { remaining: usize },
    /// The password was used with many wrong second-factor answers: those sessions were signed out and
    /// further answers are refused for a while.
    SecondFactorGuessing,
    /// A personal access token (named) was created.
    AccessTokenCreated(&'a str),
}

impl SecurityChange<'_> {
    fn sentence(self) -> String {
        match self {
            Self::PasswordChanged => "the password of your account was changed".to_owned(),
            Self::PasswordReset { tokens_left: [] } => {
                "the password of your account was reset with a recovery \
                 e-mail; every other session was signed out, with the access tokens they made"
                    .to_owned()
            }
            Self::PasswordReset { tokens_left } => format!(
                "the password of your account was reset with a recovery e-mail; every other session was signed \
                 out, with the access tokens they made. These access tokens of your account still work: {}. \
                 If you do not know one of them, revoke it (or press \"Revoke all\") on Access Tokens",
                tokens_left
                    .iter()
                    .map(|name| format!("\"{}\"", one_line(name)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Self::FactorAdded(name) => format!(
                "the second factor \"{}\" was added to your account",
                one_line(name)
            ),
            Self::FactorRemoved(name) => {
                format!(
                    "the second factor \"{}\" was removed from your account",
                    one_line(name)
                )
            }
            Self::PasskeyAdded(name) => format!(
                "the passkey \"{}\" was added to your account: it signs in without a password",
                one_line(name)
            ),
            Self::PasskeyRemoved(name) => {
                format!("the passkey \"{}\" was removed from your account", one_line(name))
            }
            Self::FactorsReset => {
                "every second factor of your account was removed by the portal's operator".to_owned()
            }
            Self::OtherSessionsSignedOut => "your account's other sessions were signed out".to_owned(),
            Self::RecoveryCodesGenerated => {
                "new recovery codes were made for your account; the earlier ones no longer work".to_owned()
            }
            Self::RecoveryCodeUsed { remaining } => format!(
                "a recovery code was used to sign in to your account ({remaining} unused code{} left)",
                if remaining == 1 { "" } else { "s" }
            ),
            Self::SecondFactorGuessing => "your password was used to sign in, followed by many wrong \
                 second-factor codes; those sessions were signed out and second-factor answers are refused \
                 for an hour. If this was not you, change your password now"
                .to_owned(),
            Self::AccessTokenCreated(name) => format!(
                "the access token \"{}\" was created for your account: it acts as you in the portal's API \
                 until it expires or is revoked on Access Tokens",
                one_line(name)
            ),
        }
    }

    const fn subject(self) -> &'static str {
        match self {
            Self::PasswordChanged | Self::PasswordReset { .. } => "Your password was changed",
            Self::FactorAdded(_) => "A second factor was added to your account",
            Self::FactorRemoved(_) | Self::FactorsReset => "A second factor was removed from your account",
            Self::OtherSessionsSignedOut => "Your other sessions were signed out",
            Self::RecoveryCodesGenerated => "New recovery codes were made for your account",
            Self::RecoveryCodeUsed { .. } => "A recovery code was used on your account",
            Self::SecondFactorGuessing => "Your password was used with wrong second-factor codes",
            Self::PasskeyAdded(_) => "A passkey was added to your account",
            Self::PasskeyRemoved(_) => "A passkey was removed from your account",
            Self::AccessTokenCreated(_) => "An access token was created for your account",
        }
    }
}

/// Tells the owner of an account that how it signs in changed, when, and what to do if it was not them. The
/// link opens Account Security. It names no secret.
#[must_use]
pub fn security_notice(
    to: &EmailAddress,
    change: SecurityChange<'_>,
    at: DateTime<Utc>,
    account_security_link: &str,
) -> OutgoingEmail {
    let body = format!(
        "On {when}, {what}.\n\nIf this was you, there is nothing to do. If it was not, reset your password \
         now with \"Forgot password?\" on the sign-in page, review your second factors and sessions on \
         Account Security, and tell your organization's admins:\n\n{account_security_link}",
        when = format_instant(at),
        what = change.sentence(),
    );
    email(
        EmailKind::SecurityNotice,
        to,
        format!("{} ({PRODUCT_NAME})", change.subject()),
        body,
        Some(account_security_link),
    )
}

/// To an organization's admins: the server disabled a webhook endpoint (`410 Gone`, or three days of
/// failures); `url` is its URL as shown (`webhooks::models::shown_url`: the path, which may hold a secret,
/// elided), `webhooks_link` the Webhooks page.
#[must_use]
pub fn webhook_disabled(to: &EmailAddress, url: &str, why: &str, webhooks_link: &str) -> OutgoingEmail {
    let body = format!(
        "The webhook endpoint {url} was disabled: {why}. No more events are sent to it.\n\nWhen it can \
         receive events again, enable it on the Webhooks page, where its delivery log shows each answer:\n\n\
         {webhooks_link}"
    );
    email(
        EmailKind::WebhookDisabled,
        to,
        format!("A webhook endpoint was disabled ({PRODUCT_NAME})"),
        body,
        Some(webhooks_link),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;

    fn to() -> EmailAddress {
        EmailAddress::parse("dev@example.com").unwrap()
    }

    const LINK: &str = "https://portal.example.com/auth/v1/verify?token=abc";

    #[test]
    fn the_account_emails_carry_their_link_its_validity_and_a_clear_subject() {
        let cases = [
            (
                confirm_signup(&to(), LINK, 15),
                EmailKind::ConfirmSignup,
                "Confirm your e-mail",
            ),
            (magic_link(&to(), LINK, 15), EmailKind::MagicLink, "sign-in link"),
            (
                password_recovery(&to(), LINK, 15),
                EmailKind::PasswordRecovery,
                "Reset your",
            ),
        ];
        for (mail, kind, subject) in cases {
            assert_eq!(mail.kind, kind);
            assert_eq!(mail.to, to());
            assert!(mail.subject.contains(subject), "{}", mail.subject);
            assert!(mail.text.contains(LINK));
            assert!(mail.text.contains("15 minutes"));
            assert_eq!(mail.link.as_deref(), Some(LINK));
        }
    }

    #[test]
    fn an_invitation_names_the_organization_inviter_role_link_and_expiry() {
        let inviter = EmailAddress::parse("boss@acme.example.com").unwrap();
        let link = "https://portal.example.com/invite/accept?token=ff";
        let mail = org_invite(
            &to(),
            &OrgInviteMail {
                org_name: "Acme",
                inviter: &inviter,
                role: OrgRole::Admin,
                link,
                expires_at: noon(),
            },
        );
        assert_eq!(mail.kind, EmailKind::OrgInvite);
        assert_eq!(
            mail.subject,
            "You're invited to join Acme on the Developer Portal"
        );
        for part in [
            "boss@acme.example.com",
            "\"Acme\"",
            "an admin",
            link,
            "2026-03-15 12:00 UTC",
        ] {
            assert!(mail.text.contains(part), "missing {part}");
        }
        assert_eq!(mail.link.as_deref(), Some(link));
    }

    #[test]
    fn user_provided_names_cannot_add_lines_to_a_subject() {
        let mail = app_approved(&to(), "Evil\r\nBcc: victim@example.com", None);
        assert_eq!(mail.subject, "Your app Evil Bcc: victim@example.com was approved");
        assert!(!mail.subject.contains('\n') && !mail.subject.contains('\r'));
    }

    #[test]
    fn an_overlong_name_is_cut_in_the_subject() {
        let mail = app_approved(&to(), &"x".repeat(500), None);
        assert!(mail.subject.chars().count() < 160);
    }

    #[test]
    fn an_approval_includes_notes_only_when_given() {
        let with = app_approved(&to(), "Notes App", Some("Nice work"));
        assert!(with.text.contains("Reviewer notes:\nNice work"));
        let without = app_approved(&to(), "Notes App", Some("  "));
        assert!(!without.text.contains("Reviewer notes"));
        assert_eq!(without.kind, EmailKind::AppApproved);
        assert_eq!(without.link, None);
    }

    #[test]
    fn a_rejection_gives_the_reason_and_asks_for_a_resubmission() {
        let mail = app_rejected(&to(), "Notes App", "Missing privacy policy");
        assert_eq!(mail.kind, EmailKind::AppRejected);
        assert_eq!(mail.subject, "Your app Notes App was not approved");
        assert!(mail.text.contains("Reason:\nMissing privacy policy"));
        assert!(mail.text.contains("resubmit"));
    }

    #[test]
    fn a_security_notice_says_what_changed_when_and_what_to_do() {
        let mail = security_notice(
            &to(),
            SecurityChange::FactorAdded("Phone\nBcc: evil@example.com"),
            noon(),
            "https://portal.example.com/account/security",
        );
        assert_eq!(mail.kind, EmailKind::SecurityNotice);
        assert_eq!(
            mail.subject,
            "A second factor was added to your account (Developer Portal)"
        );
        assert!(
            mail.text
                .contains("the second factor \"Phone Bcc: evil@example.com\" was added"),
            "{}",
            mail.text
        );
        assert!(mail.text.contains(&format_instant(noon())));
        assert!(mail.text.contains("Forgot password?"));
        assert_eq!(
            mail.link.as_deref(),
            Some("https://portal.example.com/account/security")
        );
        for change in [
            SecurityChange::PasswordChanged,
            SecurityChange::PasswordReset { tokens_left: &[] },
            SecurityChange::FactorRemoved("Phone"),
            SecurityChange::FactorsReset,
            SecurityChange::OtherSessionsSignedOut,
        ] {
            let mail = security_notice(&to(), change, noon(), "https://p/account/security");
            assert!(!mail.subject.contains('\n'));
            assert!(mail.text.starts_with(&format!("On {}, ", format_instant(noon()))));
        }
    }

    #[test]
    fn a_reset_notice_names_the_access_tokens_that_still_work() {
        let left = ["CI deploy".to_owned(), "line\nbreak".to_owned()];
        let mail = security_notice(
            &to(),
            SecurityChange::PasswordReset { tokens_left: &left },
            noon(),
            "https://p/account/security",
        );
        assert!(
            mail.text.contains("\"CI deploy\", \"line break\""),
            "{}",
            mail.text
        );
        assert!(mail.text.contains("Revoke all"));
        let none = security_notice(
            &to(),
            SecurityChange::PasswordReset { tokens_left: &[] },
            noon(),
            "https://p/account/security",
        );
        assert!(none.text.contains("with the access tokens they made"));
        assert!(!none.text.contains("still work"));
    }
}
