//! The rules the document adds to the request bodies: the control-character rule on every text and key
//! ([`TextRule`]), and the fields a registration may not leave out ([`RequiredAtRegistration`]).

use domain::common::text::{self, Lines};
use utoipa::Modify;

use super::operations_of;

/// Every text of a request body refuses control characters ([`crate::json`], the domain's
/// [`text`](domain::common::text) rule; tab and line breaks allowed in the multi-line fields), and so does
/// every key, also of the members a route ignores: the document gives each string of the request bodies (and of
/// the schemas they name) the rule's `pattern`, each object its `propertyNames`, and the members it does not
/// name the schema `IgnoredMember` (`additionalProperties`; the web UI's generated types leave it out). A string already given `pattern = r"\S"` (not blank) gets
/// the rule's not-blank form; a string with another pattern, a format or a list of values keeps it.
pub(super) struct TextRule;

impl TextRule {
    const NOT_BLANK: &'static str = r"\S";
    /// The schema of a member a route does not read: any JSON, whose texts and keys follow the rule too.
    pub const IGNORED: &'static str = "IgnoredMember";

    /// [`Self::IGNORED`]: a value of any kind; a text without the control characters of a multi-line
    /// text (the server also refuses a tab or a line break in most fields, which the name decides); keys
    /// without any; arrays and objects of the same.
    fn ignored_member() -> utoipa::openapi::schema::Schema {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::{AnyOfBuilder, ArrayBuilder, ObjectBuilder, SchemaType, Type};
        let itself = || RefOr::Ref(utoipa::openapi::Ref::from_schema_name(Self::IGNORED));
        let key = ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(text::pattern(Lines::Single)));
        AnyOfBuilder::new()
            .description(Some(
                "A member the route does not read: ignored, but its texts and keys may not hold control \
                 characters either (`VALIDATION`).",
            ))
            .item(ObjectBuilder::new().schema_type(SchemaType::Array(vec![
                Type::Null,
                Type::Boolean,
                Type::Number,
            ])))
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some(text::pattern(Lines::Multi))),
            )
            .item(ArrayBuilder::new().items(itself()))
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Object)
                    .property_names(Some(key))
                    .additional_properties(Some(itself())),
            )
            .into()
    }

    fn rule(
        schema: &mut utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        lines: Lines,
        named: &mut Vec<String>,
    ) {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::{AdditionalProperties, ArrayItems, Schema};
        match schema {
            RefOr::Ref(reference) => {
                let name = reference
                    .ref_location
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                if !named.contains(&name) {
                    named.push(name);
                }
            }
            RefOr::T(Schema::Object(object)) => {
                if is_text(&object.schema_type) && object.format.is_none() && object.enum_values.is_none() {
                    match object.pattern.as_deref() {
                        None => object.pattern = Some(text::pattern(lines).to_owned()),
                        Some(Self::NOT_BLANK) => {
                            object.pattern = Some(text::non_blank_pattern(lines).to_owned())
                        }
                        Some(_) => {}
                    }
                }
                if !object.properties.is_empty() || object.additional_properties.is_some() {
                    object.property_names.get_or_insert_with(|| {
                        Box::new(
                            utoipa::openapi::schema::ObjectBuilder::new()
                                .schema_type(utoipa::openapi::schema::Type::String)
                                .pattern(Some(text::pattern(Lines::Single)))
                                .into(),
                        )
                    });
                }
                if !object.properties.is_empty() && object.additional_properties.is_none() {
                    object.additional_properties = Some(Box::new(AdditionalProperties::RefOr(RefOr::Ref(
                        utoipa::openapi::Ref::from_schema_name(Self::IGNORED),
                    ))));
                }
                for (name, property) in &mut object.properties {
                    Self::rule(property, Lines::of_field(name), named);
                }
                if let Some(additional) = object.additional_properties.as_deref_mut()
                    && let AdditionalProperties::RefOr(values) = additional
                {
                    Self::rule(values, Lines::Single, named);
                }
            }
            RefOr::T(Schema::Array(array)) => {
                if let ArrayItems::RefOrSchema(items) = &mut array.items {
                    Self::rule(items, lines, named);
                }
            }
            RefOr::T(Schema::AllOf(all)) => all
                .items
                .iter_mut()
                .for_each(|item| Self::rule(item, lines, named)),
            RefOr::T(Schema::OneOf(one)) => one
                .items
                .iter_mut()
                .for_each(|item| Self::rule(item, lines, named)),
            RefOr::T(Schema::AnyOf(any)) => any
                .items
                .iter_mut()
                .for_each(|item| Self::rule(item, lines, named)),
            RefOr::T(_) => {}
        }
    }
}

/// Whether a schema's type is a text (or a text or `null`).
fn is_text(schema_type: &utoipa::openapi::schema::SchemaType) -> bool {
    use utoipa::openapi::schema::{SchemaType, Type};
    match schema_type {
        SchemaType::Type(Type::String) => true,
        SchemaType::Array(types) => types.contains(&Type::String),
        _ => false,
    }
}

impl Modify for TextRule {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let mut named = Vec::new();
        for item in openapi.paths.paths.values_mut() {
            for operation in operations_of(item) {
                // JSON bodies only: a multipart form's parts are read by their own rules.
                let bodies = operation.request_body.iter_mut().flat_map(|body| match body {
                    utoipa::openapi::RefOr::T(body) => Some(body.content.iter_mut()),
                    utoipa::openapi::RefOr::Ref(_) => None,
                });
                let bodies = bodies
                    .flatten()
                    .filter(|(kind, _)| kind.as_str() == "application/json")
                    .map(|(_, content)| content);
                let schemas = bodies.filter_map(|content| match content {
                    utoipa::openapi::RefOr::T(content) => content.schema.as_mut(),
                    utoipa::openapi::RefOr::Ref(_) => None,
                });
                for schema in schemas {
                    Self::rule(schema, Lines::Single, &mut named);
                }
            }
        }
        // The schemas the bodies name, and those they name in turn, each once.
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        components
            .schemas
            .insert(Self::IGNORED.to_owned(), Self::ignored_member().into());
        let mut done = 0;
        while done < named.len() {
            let name = named[done].clone();
            done += 1;
            if let Some(schema) = components.schemas.get_mut(&name) {
                Self::rule(schema, Lines::Single, &mut named);
            }
        }
    }
}

/// The register body shares its descriptive fields with the update body, where each may be left out or
/// `null`; at registration the domain's
/// [`REQUIRED_AT_REGISTRATION`](domain::apps::validation::REQUIRED_AT_REGISTRATION) may not. The document
/// says so with one more member of the body's `allOf`: those fields present, each a text that is not blank.
pub(super) struct RequiredAtRegistration;

impl Modify for RequiredAtRegistration {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
        let schemas = openapi
            .components
            .as_mut()
            .map(|components| &mut components.schemas);
        let Some(RefOr::T(Schema::AllOf(body))) =
            schemas.and_then(|schemas| schemas.get_mut("RegistrationInput"))
        else {
            return;
        };
        let text = || {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .pattern(Some(r"\S"))
        };
        let required = domain::apps::validation::REQUIRED_AT_REGISTRATION
            .iter()
            .fold(ObjectBuilder::new(), |object, field| {
                object.required(*field).property(*field, text())
            });
        body.items.push(required.build().into());
    }
}
