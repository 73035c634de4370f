//! `app-server factors reset EMAIL`: the recovery path of a user who lost every second factor. The operator
//! checks who is asking first; the reset is written to the server log and e-mailed to the account.

use adapter_db::Db;
use adapter_db::repos::{
    DieselAccountRepository, DieselFactorRepository, DieselPasskeyRepository, DieselRefreshTokenRepository,
};
use clap::Subcommand;
use domain::identity::factors::{FactorResetError, ResetNotice, operator_reset};

#[derive(Debug, Subcommand)]
pub enum FactorsCommand {
    /// Remove every second factor (authenticator apps and passkeys) of the account with this e-mail address
    /// (every session ends, and every access token those sessions made; the user signs in with the
    /// password and adds a new one).
    Reset { email: String },
}

/// Runs one factors command and answers what to print.
///
/// # Errors
/// An invalid address, an address without an account, or a store failure.
pub async fn run(db: &Db, public_url: &str, command: FactorsCommand) -> Result<String, FactorResetError> {
    match command {
        FactorsCommand::Reset { email } => {
            let accounts = DieselAccountRepository::new(db.clone());
            let factors = DieselFactorRepository::new(db.clone());
            let notice = ResetNotice {
                public_url,
                at: chrono::Utc::now(),
            };
            let factors_removed = operator_reset(&accounts, &factors, &email, &notice).await?;
            let account = match domain::common::EmailAddress::parse(&email) {
                Ok(address) => {
                    domain::identity::ports::AccountRepository::find_by_email(&accounts, &address).await?
                }
                Err(_) => None,
            };
            let passkeys_removed = match &account {
                Some(account) => {
                    let passkeys = DieselPasskeyRepository::new(db.clone());
                    domain::identity::passkeys::operator_remove_all(&passkeys, account, public_url, notice.at)
                        .await?
                }
                None => Vec::new(),
            };
            // A reset is a recovery: every session ends, and with them every access token they made (an
            // intruder's among them); the owner signs in again with the password.
            if let Some(account) = &account {
                domain::identity::ports::RefreshTokenRepository::revoke_all_for_user(
                    &DieselRefreshTokenRepository::new(db.clone()),
                    account.id,
                    None,
                    notice.at,
                    None,
                )
                .await?;
            }
            let user_id = factors_removed
                .first()
                .map(|f| f.user_id)
                .or_else(|| passkeys_removed.first().map(|p| p.user_id))
                .map(|id| id.to_string())
                .unwrap_or_default();
            let removed = factors_removed.len() + passkeys_removed.len();
            tracing::warn!(
                email = %email.trim().to_lowercase(),
                user_id,
                removed,
                "operator reset the second factors of an account (app-server factors reset)"
            );
            Ok(if removed == 0 {
                format!("{} had no second factor", email.trim().to_lowercase())
            } else {
                format!(
                    "removed {} second factor(s) of {} and ended their sessions; they sign in with their password and can add a new one",
                    removed,
                    email.trim().to_lowercase()
                )
            })
        }
    }
}
