//! Typed identifiers. Each wraps a UUID so that an organization id can never be passed where a user id is
//! expected.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

macro_rules! uuid_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A fresh random (v4) identifier.
            #[must_use]
            pub fn new() -> Self {
                Self(Uuid::new_v4())
            }

            #[must_use]
            pub const fn as_uuid(&self) -> &Uuid {
                &self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }

        impl From<Uuid> for $name {
            fn from(value: Uuid) -> Self {
                Self(value)
            }
        }
    };
}

uuid_id!(
    /// An account of the built-in identity service (or the subject of a hosted identity token).
    UserId
);
uuid_id!(
    /// An organization.
    OrgId
);
uuid_id!(
    /// A pending organization invitation.
    InviteId
);
uuid_id!(
    /// An uploaded image.
    ImageId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_round_trips_through_its_text_form() {
        let id = OrgId::new();
        let parsed: OrgId = id.to_string().parse().unwrap();
        assert_eq!(parsed, id);
    }

    #[test]
    fn an_id_serialises_as_a_plain_string() {
        let id = UserId(Uuid::nil());
        assert_eq!(
            serde_json::to_string(&id).unwrap(),
            "\"00000000-0000-0000-0000-000000000000\""
        );
    }

    #[test]
    fn text_that_is_not_a_uuid_is_not_an_id() {
        assert!("not-a-uuid".parse::<ImageId>().is_err());
    }
}
