//! What protects an account (`domain::identity::Protection`), read as three `EXISTS` subqueries of a
//! statement about the account: a verified TOTP factor, a verified WebAuthn factor, a passkey. Which of
//! them make the account protected is the domain's to say; every statement that needs it (the session
//! read of every request, the members list) uses this one definition.

use domain::identity::Protection;

/// The three `EXISTS` of the account whose id is the column `$user`, as a tuple ([`ProtectionRow`]).
macro_rules! protection {
    ($user:expr) => {
        (
            diesel::dsl::exists(
                crate::schema::factors::table
                    .filter(crate::schema::factors::user_id.eq($user))
                    .filter(
                        crate::schema::factors::factor_type
                            .eq(domain::identity::factors::FactorType::Totp.as_str()),
                    )
                    .filter(
                        crate::schema::factors::status
                            .eq(domain::identity::factors::FactorStatus::Verified.as_str()),
                    ),
            ),
            diesel::dsl::exists(
                crate::schema::factors::table
                    .filter(crate::schema::factors::user_id.eq($user))
                    .filter(
                        crate::schema::factors::factor_type
                            .eq(domain::identity::factors::FactorType::WebAuthn.as_str()),
                    )
                    .filter(
                        crate::schema::factors::status
                            .eq(domain::identity::factors::FactorStatus::Verified.as_str()),
                    ),
            ),
            diesel::dsl::exists(
                crate::schema::passkeys::table.filter(crate::schema::passkeys::user_id.eq($user)),
            ),
        )
    };
}
pub(super) use protection;

/// What [`protection!`] reads.
pub(super) type ProtectionRow = (bool, bool, bool);

/// The account's protection from what [`protection!`] read.
pub(super) const fn from_row((totp, webauthn_factor, passkey): ProtectionRow) -> Protection {
    Protection {
        totp,
        webauthn_factor,
        passkey,
    }
}
