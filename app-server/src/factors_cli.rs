//! `app-server factors reset EMAIL`: the recovery path of a user who lost every second factor. The operator
//! checks who is asking first; the reset is written to the server log and e-mailed to the account.

use adapter_db::Db;
use adapter_db::repos::{DieselAccountRepository, DieselFactorRepository, DieselPasskeyRepository};
use clap::Subcommand;
use domain::identity::factors::{FactorResetError, ResetNotice, operator_reset};

#[derive(Debug, Subcommand)]
pub enum FactorsCommand {
    /// Remove every second factor (authenticator apps and passkeys) of the account with this e-mail address
    /// (its sessions drop to aal1; the user signs in with the password and adds a new one).
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
            let passkeys_removed = match domain::common::EmailAddress::parse(&email) {
                Ok(address) => {
                    match domain::identity::ports::AccountRepository::find_by_email(&accounts, &address)
                        .await?
                    {
                        Some(account) => {
                            let passkeys = DieselPasskeyRepository::new(db.clone());
                            domain::identity::passkeys::operator_remove_all(
                                &passkeys, &account, public_url, notice.at,
                            )
                            .await?
                        }
                        None => Vec::new(),
                    }
                }
                Err(_) => Vec::new(),
            };
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
                    "removed {} second factor(s) of {}; they sign in with their password and can add a new one",
                    removed,
                    email.trim().to_lowercase()
                )
            })
        }
    }
}
