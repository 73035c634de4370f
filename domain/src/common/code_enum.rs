//! [`code_enum!`]: an enum whose every variant has one wire code (a string such as `app.approved`), the only
//! place that code is spelled. The audit actions and the webhook event types are such lists: stored as
//! text, sent as is, read back, shown in the OpenAPI document as the list of codes, and never renamed once
//! released.

/// Declares `enum $name` with the variants and codes given, and on it:
///
/// - `ALL`: every variant, in the order of the list;
/// - `code()`: the variant's code, and `parse()`: the variant of a code (`None` for an unknown one);
/// - `Serialize`/`Deserialize` as the code, and `Display` writing it;
/// - with the `openapi` feature, the schema: a string whose enum is the codes, described by the literal
///   after the name (written here because the schema derive cannot read the attributes a macro makes).
///
/// The enum derives `Debug, Clone, Copy, PartialEq, Eq, Hash`; attributes written before `pub enum` (its
/// documentation, more derives) are kept.
///
/// ```ignore
/// code_enum! {
///     /// What happened.
///     pub enum Happening: "A happening (the list of `domain::happenings`)" {
///         /// Something began.
///         Began => "thing.began",
///     }
/// }
/// ```
macro_rules! code_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident : $schema_description:literal {
            $($(#[$doc:meta])* $variant:ident => $code:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize)]
        $vis enum $name {
            $($(#[$doc])* #[serde(rename = $code)] $variant,)*
        }

        impl $name {
            /// Every value, in the order of the list that declares them.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)*];

            /// The wire spelling, such as `area.verb`: stored, sent and shown as is.
            #[must_use]
            pub const fn code(self) -> &'static str {
                match self {
                    $(Self::$variant => $code,)*
                }
            }

            /// The value of a code, `None` for an unknown one.
            #[must_use]
            pub fn parse(code: &str) -> Option<Self> {
                match code {
                    $($code => Some(Self::$variant),)*
                    _ => None,
                }
            }
        }

        /// The schema is the list of codes.
        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .description(Some($schema_description))
                    .enum_values(Some(Self::ALL.iter().map(|value| value.code())))
                    .into()
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for $name {}

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.code())
            }
        }
    };
}

pub(crate) use code_enum;

#[cfg(test)]
mod tests {
    code_enum! {
        /// A list for the test.
        #[derive(PartialOrd, Ord)]
        pub enum Sample: "A sample" {
            /// The first.
            First => "sample.first",
            Second => "sample.second",
        }
    }

    #[test]
    fn every_value_has_its_code_both_ways_and_on_the_wire() {
        assert_eq!(Sample::ALL, [Sample::First, Sample::Second]);
        for value in Sample::ALL {
            assert_eq!(Sample::parse(value.code()), Some(*value));
            assert_eq!(value.to_string(), value.code());
            assert_eq!(
                serde_json::to_value(value).unwrap(),
                serde_json::json!(value.code())
            );
            assert_eq!(
                serde_json::from_value::<Sample>(serde_json::json!(value.code())).unwrap(),
                *value
            );
        }
        assert_eq!(Sample::parse("sample.third"), None);
        assert!(Sample::First < Sample::Second);
    }
}
