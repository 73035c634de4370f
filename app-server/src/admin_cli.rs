//! `app-server admin grant|revoke|list`: platform admins from the command line. Whoever can run the
//! binary against the database is trusted (that is how the first admin is made): a grant binds at once to
//! the account that has the address, proven or not; without an account it waits for the first account
//! that proves the address. Each change is recorded in the platform's audit log with the operator as its
//! actor (no account: `actor.id` is `null`).

use adapter_db::Db;
use adapter_db::repos::DieselPlatformAdminRepository;
use adapter_identity::OsSecretGenerator;
use clap::Subcommand;
use domain::identity::admins::{PlatformAdminError, PlatformAdminService};
use std::sync::Arc;

use crate::system::SystemClock;

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Give an e-mail address a platform role: the account with that address gets it now (you vouch for it);
    /// with no account yet, the first account that proves the address (an e-mailed link or code, or a
    /// provider's verified e-mail) gets it.
    Grant {
        email: String,
        /// `admin` (reviews apps and manages platform admins) or `reviewer` (reviews only).
        #[arg(long, default_value = "admin")]
        role: String,
    },
    /// Remove an e-mail address's platform role (the last admin cannot be removed).
    Revoke { email: String },
    /// List everyone with a platform role.
    List,
}

/// The platform-admin service over the database.
#[must_use]
pub fn service(db: &Db) -> PlatformAdminService {
    PlatformAdminService::new(
        Arc::new(DieselPlatformAdminRepository::new(db.clone())),
        Arc::new(SystemClock),
        Arc::new(OsSecretGenerator),
    )
}

/// Runs one admin command and answers what to print.
///
/// # Errors
/// The rule that refused the change (invalid e-mail or role, last admin, unknown e-mail) or a store failure.
pub async fn run(db: &Db, command: AdminCommand) -> Result<String, PlatformAdminError> {
    let service = service(db);
    match command {
        AdminCommand::Grant { email, role } => {
            let admin = service.operator_grant(&email, &role).await?;
            if admin.is_bound() {
                Ok(format!("{} is now a platform {}", admin.email, admin.role.code()))
            } else {
                Ok(format!(
                    "{} will be a platform {} once an account proves the address (no account has it yet); \
                     after the first sign-in with it, run this command again to give the role to that account",
                    admin.email,
                    admin.role.code()
                ))
            }
        }
        AdminCommand::Revoke { email } => {
            service.operator_revoke(&email).await?;
            Ok(format!(
                "{} no longer has a platform role",
                email.trim().to_lowercase()
            ))
        }
        AdminCommand::List => {
            let admins = service.operator_list().await?;
            if admins.is_empty() {
                return Ok("No platform admins yet. Add one with: app-server admin grant EMAIL".into());
            }
            let mut out = format!(
                "{:<40} {:<9} {:<8} {:<20} {}\n",
                "EMAIL", "ROLE", "STATUS", "ADDED (UTC)", "ADDED BY"
            );
            for admin in admins {
                out.push_str(&format!(
                    "{:<40} {:<9} {:<8} {:<20} {}\n",
                    admin.email.as_str(),
                    admin.role.code(),
                    if admin.is_bound() { "bound" } else { "pending" },
                    admin.added_at.format("%Y-%m-%d %H:%M"),
                    admin.added_through().describe(),
                ));
            }
            out.push_str(
                "\nbound: the role belongs to that account. pending: it waits for the first account that proves \
                 the address (an e-mailed link or code, or a provider's verified e-mail); `app-server admin \
                 grant EMAIL` gives it to an account that has the address now.\n",
            );
            Ok(out.trim_end().to_owned())
        }
    }
}
