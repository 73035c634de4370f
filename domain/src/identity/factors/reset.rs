//! The operator's way out for a user who lost every factor.

use super::Factor;
use crate::common::RepoError;

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
) -> Result<Vec<Factor>, FactorResetError> {
    let address = crate::common::EmailAddress::parse(email)
        .map_err(|_| FactorResetError::InvalidEmail(email.trim().to_owned()))?;
    let account = accounts
        .find_by_email(&address)
        .await?
        .ok_or_else(|| FactorResetError::NoAccount(address.as_str().to_owned()))?;
    let found = factors.list_for_user(account.id).await?;
    let mut removed = Vec::with_capacity(found.len());
    for factor in found {
        if factors.delete(account.id, factor.id).await? {
            removed.push(factor);
        }
    }
    Ok(removed)
}
