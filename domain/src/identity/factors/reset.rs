//! The operator's way out for a user who lost every factor.

use chrono::{DateTime, Utc};

use super::Factor;
use crate::common::RepoError;
use crate::mail::templates::{self, SecurityChange};

/// What the operator's reset needs to tell the owner: when, and the portal's address for the link.
#[derive(Debug, Clone, Copy)]
pub struct ResetNotice<'a> {
    /// `PORTAL_PUBLIC_URL`.
    pub public_url: &'a str,
    pub at: DateTime<Utc>,
}

/// Why the operator's reset of an account's factors did not happen.
#[derive(Debug, thiserror::Error)]
pub enum FactorResetError {
    #[error("{0} is not a valid e-mail address")]
    InvalidEmail(String),
    #[error("no account has the address {0}")]
    NoAccount(String),
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// The recovery path of a user who lost every factor (`app-server factors reset EMAIL`, run by an operator
/// who has checked who is asking): removes every factor of the account, which drops its sessions to
/// `aal1`. Answers the factors removed.
///
/// # Errors
/// [`FactorResetError`] for an invalid address, an address without an account, or a store failure.
pub async fn operator_reset(
    accounts: &dyn crate::identity::ports::AccountRepository,
    factors: &dyn crate::identity::ports::FactorRepository,
    email: &str,
    notice: &ResetNotice<'_>,
) -> Result<Vec<Factor>, FactorResetError> {
    let address = crate::common::EmailAddress::parse(email)
        .map_err(|_| FactorResetError::InvalidEmail(email.trim().to_owned()))?;
    let account = accounts
        .find_by_email(&address)
        .await?
        .ok_or_else(|| FactorResetError::NoAccount(address.as_str().to_owned()))?;
    let found = factors.list_for_user(account.id).await?;
    let mut removed = Vec::with_capacity(found.len());
    // One e-mail tells the owner, written with the first confirmed factor removed.
    let mut pending = found.iter().any(Factor::is_verified).then(|| {
        let link = format!("{}/account/security", notice.public_url.trim_end_matches('/'));
        templates::security_notice(&account.email, SecurityChange::FactorsReset, notice.at, &link)
    });
    for factor in found {
        let email = if factor.is_verified() {
            pending.take()
        } else {
            None
        };
        let sent = email.clone();
        if factors.delete(account.id, factor.id, notice.at, email).await? {
            removed.push(factor);
        } else if sent.is_some() {
            // That factor was already gone: the next confirmed one carries the e-mail.
            pending = sent;
        }
    }
    Ok(removed)
}
