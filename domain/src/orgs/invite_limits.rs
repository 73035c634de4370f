//! The portal is no relay (PRODUCT.md §1): invitation e-mails are limited, so that one account cannot send
//! unlimited e-mail, under an organization name it chooses, to addresses it chooses.
//!
//! - at most [`MAX_OPEN_INVITES_PER_ORG`] open (unexpired) invitations per organization;
//! - at most [`INVITE_EMAILS_PER_ACCOUNT_PER_DAY`] invitation e-mails (invitations and resends) per account
//!   in any 24 hours;
//! - an invitation is resent at most once per [`RESEND_INTERVAL_MINUTES`] minutes and at most
//!   [`MAX_RESENDS_PER_INVITE`] times;
//! - every invitation e-mail counts against the recipient address's e-mail limit, the one the identity
//!   service's magic-link and code e-mails count against ([`recipient_key`]), so invitations cannot be used to
//!   flood an address either.
//!
//! The counters are the identity rate limits' ([`RateLimitStore`]: shared by every instance on PostgreSQL,
//! sliding windows, keys stored as digests). Each refusal is [`InviteLimited`] with the seconds to wait.

use chrono::{DateTime, Duration, Utc};

use super::invites::{Invite, invite_validity};
use crate::common::RepoError;
use crate::common::secrets::digest_secret;
use crate::common::{EmailAddress, UserId};
use crate::identity::rate_limit::{AuthAction, Limit, RateDecision, RateLimitPolicy, RateLimitStore};

/// Open (unexpired) invitations an organization may have at once.
pub const MAX_OPEN_INVITES_PER_ORG: usize = 50;
/// Invitation e-mails (new invitations and resends) one account may send in any 24 hours.
pub const INVITE_EMAILS_PER_ACCOUNT_PER_DAY: u32 = 100;
/// The least time between two e-mails of one invitation.
pub const RESEND_INTERVAL_MINUTES: i64 = 10;
/// How many times one invitation may be resent (after its first e-mail).
pub const MAX_RESENDS_PER_INVITE: u32 = 5;

const DAY_SECS: i64 = 24 * 60 * 60;

/// Which invitation limit refused an e-mail; its text is what the Members page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InviteLimit {
    /// The organization has [`MAX_OPEN_INVITES_PER_ORG`] open invitations.
    OpenInvites,
    /// The account sent [`INVITE_EMAILS_PER_ACCOUNT_PER_DAY`] invitation e-mails in the last 24 hours.
    AccountDaily,
    /// The recipient address received as many e-mails as it may for now.
    Recipient,
    /// The invitation's last e-mail left less than [`RESEND_INTERVAL_MINUTES`] ago.
    ResendTooSoon,
    /// The invitation was resent [`MAX_RESENDS_PER_INVITE`] times.
    ResendsUsedUp,
    /// The client looked up too many invitation links (`InvitationService::preview_invite`).
    Previews,
}

impl InviteLimit {
    /// The message shown to the person who tried.
    #[must_use]
    pub fn message(self) -> String {
        match self {
            Self::OpenInvites => format!(
                "This organization already has {MAX_OPEN_INVITES_PER_ORG} open invitations. Cancel some, or wait \
                 until they are accepted or expire, before inviting more people."
            ),
            Self::AccountDaily => format!(
                "You have sent {INVITE_EMAILS_PER_ACCOUNT_PER_DAY} invitation emails in the last 24 hours, the most \
                 allowed. Please try again later."
            ),
            Self::Recipient => {
                "Too many emails have been sent to this address recently. Please try again later.".to_owned()
            }
            Self::ResendTooSoon => format!(
                "This invitation was sent less than {RESEND_INTERVAL_MINUTES} minutes ago. Please wait before \
                 resending it."
            ),
            Self::ResendsUsedUp => format!(
                "This invitation has already been resent {MAX_RESENDS_PER_INVITE} times and cannot be resent again."
            ),
            Self::Previews => {
                "Too many invitation links were checked from your network. Please try again later.".to_owned()
            }
        }
    }
}

/// An invitation e-mail refused by a limit: answer 429 with `Retry-After: retry_after_secs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InviteLimited {
    pub limit: InviteLimit,
    pub retry_after_secs: u64,
}

/// The counter key of the recipient's e-mail limit: the identity service's per-address ceiling of e-mailed
/// links and codes (across every client), so that invitations and sign-in e-mails share one allowance per
/// address.
#[must_use]
pub fn recipient_key(email: &EmailAddress) -> String {
    RateLimitPolicy::account_key(AuthAction::Otp, email.as_str())
}

/// The recipient's limit (the identity policy's per-address ceiling of e-mailed links and codes).
#[must_use]
pub fn recipient_limit() -> Limit {
    let otp = RateLimitPolicy::default().otp;
    otp.per_address.unwrap_or(otp.per_account)
}

/// The counter key of the invitation e-mails an account sent.
#[must_use]
pub fn account_key(sender: UserId) -> String {
    format!("invite_email:account:{sender}")
}

/// The account's limit of invitation e-mails: [`INVITE_EMAILS_PER_ACCOUNT_PER_DAY`] in a sliding day.
#[must_use]
pub const fn account_limit() -> Limit {
    Limit::new(INVITE_EMAILS_PER_ACCOUNT_PER_DAY, DAY_SECS)
}

/// The counter key of the invitation links a client address looked up.
#[must_use]
pub fn preview_key(client: &str) -> String {
    format!("invite_preview:ip:{client}")
}

/// Invitation links one client address may look up in [`PREVIEW_WINDOW_SECS`].
pub const PREVIEWS_PER_CLIENT: u32 = 30;
/// The window of [`PREVIEWS_PER_CLIENT`]: 15 minutes.
pub const PREVIEW_WINDOW_SECS: i64 = 15 * 60;

/// The limit on looking up invitation links per client address.
#[must_use]
pub const fn preview_limit() -> Limit {
    Limit::new(PREVIEWS_PER_CLIENT, PREVIEW_WINDOW_SECS)
}

/// Whole seconds from `now` until `until`, at least 1.
fn seconds_until(now: DateTime<Utc>, until: DateTime<Utc>) -> u64 {
    let left = until - now;
    let secs = left.num_seconds() + i64::from(left.subsec_nanos() > 0);
    u64::try_from(secs.max(1)).unwrap_or(1)
}

/// Whether the organization may open one more invitation, given its open ones (`pending`, expired ones
/// included: they do not count). When it may not, the wait is until the first open one expires.
///
/// # Errors
/// [`InviteLimit::OpenInvites`].
pub fn check_open_invites(pending: &[Invite], now: DateTime<Utc>) -> Result<(), InviteLimited> {
    let open: Vec<&Invite> = pending.iter().filter(|i| !i.is_expired(now)).collect();
    if open.len() < MAX_OPEN_INVITES_PER_ORG {
        return Ok(());
    }
    let first_expiry = open.iter().map(|i| i.expires_at).min().unwrap_or(now);
    Err(InviteLimited {
        limit: InviteLimit::OpenInvites,
        retry_after_secs: seconds_until(now, first_expiry),
    })
}

/// When the invitation's last e-mail left: its expiry is always set to seven days after its latest e-mail
/// (creation or resend).
#[must_use]
pub fn last_sent_at(invite: &Invite) -> DateTime<Utc> {
    invite.expires_at - invite_validity()
}

/// Whether the invitation may be resent at `now`: fewer than [`MAX_RESENDS_PER_INVITE`] resends so far (else
/// the wait is until it expires, when a new invitation can be sent), and its last e-mail at least
/// [`RESEND_INTERVAL_MINUTES`] ago.
///
/// # Errors
/// [`InviteLimit::ResendsUsedUp`], [`InviteLimit::ResendTooSoon`].
pub fn check_resend(invite: &Invite, now: DateTime<Utc>) -> Result<(), InviteLimited> {
    let resends = invite.email_sent_count.saturating_sub(1);
    if resends >= MAX_RESENDS_PER_INVITE {
        return Err(InviteLimited {
            limit: InviteLimit::ResendsUsedUp,
            retry_after_secs: seconds_until(now, invite.expires_at),
        });
    }
    let next = last_sent_at(invite) + Duration::minutes(RESEND_INTERVAL_MINUTES);
    if now < next {
        return Err(InviteLimited {
            limit: InviteLimit::ResendTooSoon,
            retry_after_secs: seconds_until(now, next),
        });
    }
    Ok(())
}

/// Counts one invitation e-mail from `sender` to `recipient` against the account's and the recipient's
/// limits (the account's first: an account over its own limit spends nothing of the recipient's).
///
/// # Errors
/// `Ok(Err(…))` when a limit refuses the e-mail; [`RepoError`] when the counters cannot be read or written.
pub async fn count_email(
    store: &dyn RateLimitStore,
    sender: UserId,
    recipient: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<Result<(), InviteLimited>, RepoError> {
    let checks = [
        (account_limit(), account_key(sender), InviteLimit::AccountDaily),
        (
            recipient_limit(),
            recipient_key(recipient),
            InviteLimit::Recipient,
        ),
    ];
    for (limit, key, which) in checks {
        // Keys are stored as digests, as the identity limits store theirs (so the recipient's counter is
        // the very one its sign-in e-mails count on).
        let counts = store
            .hit(&digest_secret(&key), limit.window_start(now), limit.window_secs)
            .await?;
        if let RateDecision::Limited { retry_after_secs } = limit.decide(counts, now) {
            return Ok(Err(InviteLimited {
                limit: which,
                retry_after_secs,
            }));
        }
    }
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::OrgId;
    use crate::orgs::OrgRole;
    use crate::testing::MemoryRateLimitStore;
    use crate::testing::{RepeatingBytes, block_on, noon};

    fn invite(to: &str, sent_at: DateTime<Utc>) -> Invite {
        Invite::issue(
            OrgId::new(),
            EmailAddress::parse(to).unwrap(),
            OrgRole::Member,
            UserId::new(),
            &RepeatingBytes(1),
            sent_at,
        )
        .0
    }

    #[test]
    fn an_organization_opens_at_most_fifty_invitations_and_expired_ones_do_not_count() {
        let now = noon();
        let mut pending: Vec<Invite> = (0..49)
            .map(|n| invite(&format!("p{n}@example.com"), now - Duration::days(1)))
            .collect();
        pending.push(invite("old@example.com", now - Duration::days(8)));
        assert_eq!(check_open_invites(&pending, now), Ok(()));
        pending.push(invite("first@example.com", now - Duration::days(2)));
        let refused = check_open_invites(&pending, now).unwrap_err();
        assert_eq!(refused.limit, InviteLimit::OpenInvites);
        // The oldest open one expires in five days.
        assert_eq!(refused.retry_after_secs, 5 * 24 * 3600);
    }

    #[test]
    fn a_resend_waits_ten_minutes_after_the_last_email() {
        let sent = noon();
        let mut it = invite("a@example.com", sent);
        let refused = check_resend(&it, sent + Duration::minutes(4)).unwrap_err();
        assert_eq!(
            refused,
            InviteLimited {
                limit: InviteLimit::ResendTooSoon,
                retry_after_secs: 6 * 60
            }
        );
        assert_eq!(check_resend(&it, sent + Duration::minutes(10)), Ok(()));
        // After a resend at 30 minutes, the clock starts again from there.
        it.expires_at = sent + Duration::minutes(30) + invite_validity();
        it.email_sent_count = 2;
        assert_eq!(last_sent_at(&it), sent + Duration::minutes(30));
        assert!(check_resend(&it, sent + Duration::minutes(39)).is_err());
        assert_eq!(check_resend(&it, sent + Duration::minutes(40)), Ok(()));
    }

    #[test]
    fn an_invitation_is_resent_at_most_five_times() {
        let mut it = invite("a@example.com", noon());
        let later = noon() + Duration::days(1);
        it.email_sent_count = 5;
        assert_eq!(check_resend(&it, later), Ok(()));
        it.email_sent_count = 6;
        let refused = check_resend(&it, later).unwrap_err();
        assert_eq!(refused.limit, InviteLimit::ResendsUsedUp);
        assert_eq!(refused.retry_after_secs, 6 * 24 * 3600);
    }

    #[test]
    fn an_account_sends_at_most_a_hundred_invitation_emails_a_day() {
        let store = MemoryRateLimitStore::default();
        let sender = UserId::new();
        for n in 0..100 {
            let to = EmailAddress::parse(&format!("p{n}@example.com")).unwrap();
            assert_eq!(
                block_on(count_email(&store, sender, &to, noon())).unwrap(),
                Ok(()),
                "{n}"
            );
        }
        let to = EmailAddress::parse("one-more@example.com").unwrap();
        let refused = block_on(count_email(&store, sender, &to, noon()))
            .unwrap()
            .unwrap_err();
        assert_eq!(refused.limit, InviteLimit::AccountDaily);
        assert!(refused.retry_after_secs > 12 * 3600, "{refused:?}");
        // Another account is not held back.
        assert_eq!(
            block_on(count_email(&store, UserId::new(), &to, noon())).unwrap(),
            Ok(())
        );
    }

    #[test]
    fn invitation_emails_count_against_the_recipients_email_limit() {
        let store = MemoryRateLimitStore::default();
        let to = EmailAddress::parse("target@example.com").unwrap();
        let allowed = recipient_limit().max;
        for _ in 0..allowed {
            assert_eq!(
                block_on(count_email(&store, UserId::new(), &to, noon())).unwrap(),
                Ok(())
            );
        }
        let refused = block_on(count_email(&store, UserId::new(), &to, noon()))
            .unwrap()
            .unwrap_err();
        assert_eq!(refused.limit, InviteLimit::Recipient);
        // The very counter the identity service's link and code e-mails to that address use.
        assert!(store.count_of(&digest_secret("otp:account:target@example.com")) > allowed);
    }

    #[test]
    fn every_refusal_says_which_limit_and_its_number() {
        assert!(InviteLimit::OpenInvites.message().contains("50 open invitations"));
        assert!(
            InviteLimit::AccountDaily
                .message()
                .contains("100 invitation emails")
        );
        assert!(InviteLimit::ResendTooSoon.message().contains("10 minutes"));
        assert!(InviteLimit::ResendsUsedUp.message().contains("5 times"));
        assert!(InviteLimit::Recipient.message().contains("this address"));
    }
}
