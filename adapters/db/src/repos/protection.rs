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
                            .eq(domain::identity::factors::FactorType::Totp.code()),
                    )
                    .filter(
                        crate::schema::factors::status
                            .eq(domain::identity::factors::FactorStatus::Verified.code()),
                    ),
            ),
            diesel::dsl::exists(
                crate::schema::factors::table
                    .filter(crate::schema::factors::user_id.eq($user))
                    .filter(
                        crate::schema::factors::factor_type
                            .eq(domain::identity::factors::FactorType::WebAuthn.code()),
                    )
                    .filter(
                        crate::schema::factors::status
                            .eq(domain::identity::factors::FactorStatus::Verified.code()),
                    ),
            ),
            diesel::dsl::exists(
                crate::schema::passkeys::table.filter(crate::schema::passkeys::user_id.eq($user)),
            ),
        )
    };
}
pub(crate) use protection;

/// The standing in the organization `$org` (its id as text) of the account whose id is the column
/// `$user`, as three subqueries by primary key: the account's role there, whether the organization
/// requires a second factor, the revision of its apps (each `NULL` when there is no such row). What every
/// organization-scoped request reads beside its session or access token.
macro_rules! org_standing {
    ($user:expr, $org:expr) => {
        (
            crate::schema::org_members::table
                .filter(crate::schema::org_members::org_id.eq($org))
                .filter(crate::schema::org_members::user_id.eq($user))
                .select(crate::schema::org_members::role)
                .single_value(),
            crate::schema::organizations::table
                .filter(crate::schema::organizations::id.eq($org))
                .select(crate::schema::organizations::require_two_factor)
                .single_value(),
            crate::schema::organizations::table
                .filter(crate::schema::organizations::id.eq($org))
                .select(crate::schema::organizations::apps_revision)
                .single_value(),
        )
    };
}
pub(crate) use org_standing;

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
