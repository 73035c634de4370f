//! AI tools an app exposes (specification §3, §5).
//!
//! [`validate_tools`] holds the rules every write (create, update, import) applies:
//! - a tool id is non-empty and unique within the app (PRODUCT.md §4; its character set is not checked);
//! - a description is non-empty;
//! - activation phrases and allowed values are non-empty;
//! - parameter names are non-empty; only `string` parameters may list allowed values (`enum`; an empty
//!   list counts as none);
//! - length caps: id 100, description 2000, phrase 200, parameter name 100, parameter description 1000,
//!   allowed value 200 characters; at most 100 tools, 50 phrases, 50 parameters and 100 allowed values.

use crate::common::code_enum;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

use super::list_errors::{ListErrors, ListIssue, ToolsList};

/// Most tools an app may have.
pub const MAX_TOOLS: usize = 100;
/// Longest tool id, in characters.
pub const MAX_TOOL_ID_LEN: usize = 100;
/// Longest tool description, in characters.
pub const MAX_TOOL_DESCRIPTION_LEN: usize = 2000;
/// Most activation phrases of one tool.
pub const MAX_ACTIVATION_PHRASES: usize = 50;
/// Longest activation phrase, in characters.
pub const MAX_PHRASE_LEN: usize = 200;
/// Most parameters of one tool.
pub const MAX_PARAMETERS: usize = 50;
/// Longest parameter name, in characters.
pub const MAX_PARAMETER_NAME_LEN: usize = 100;
/// Longest parameter description, in characters.
pub const MAX_PARAMETER_DESCRIPTION_LEN: usize = 1000;
/// Most allowed values of one parameter.
pub const MAX_ENUM_VALUES: usize = 100;
/// Longest allowed value, in characters.
pub const MAX_ENUM_VALUE_LEN: usize = 200;

code_enum! {
    /// The type of a tool parameter's value.
    pub enum ParameterType: "The type of a tool parameter's value." {
        String => "string",
        Number => "number",
        Boolean => "boolean",
    }
}

/// One parameter of a tool. `enum` lists allowed values (strings only).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolParameter {
    #[serde(rename = "type")]
    pub kind: ParameterType,
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub description: String,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub required: bool,
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    #[cfg_attr(feature = "openapi", schema(max_items = 100))]
    pub allowed: Option<Vec<String>>,
}

impl ToolParameter {
    /// The allowed values; empty when there are none.
    #[must_use]
    pub fn allowed_values(&self) -> &[String] {
        self.allowed.as_deref().unwrap_or_default()
    }
}

/// An AI tool: an id, a description, the phrases that activate it, and its parameters by name (in the
/// order they were defined).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
    pub id: String,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 2000))]
    pub description: String,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_items = 50))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub activation_phrases: Vec<String>,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub parameters: IndexMap<String, ToolParameter>,
}

impl Tool {
    /// This tool with every empty `enum` list removed (what export writes, specification §3).
    #[must_use]
    pub fn without_empty_enums(&self) -> Self {
        let mut tool = self.clone();
        for parameter in tool.parameters.values_mut() {
            if parameter.allowed.as_ref().is_some_and(Vec::is_empty) {
                parameter.allowed = None;
            }
        }
        tool
    }
}

/// Splits a comma-separated list as the editor reads activation phrases and allowed values: each item
/// trimmed, empty items dropped (specification §5).
#[must_use]
pub fn parse_comma_list(input: &str) -> Vec<String> {
    input
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The editor's text form of a list: items joined by `", "` (so that [`parse_comma_list`] reads it back).
#[must_use]
pub fn join_comma_list(items: &[String]) -> String {
    items.join(", ")
}

/// One problem found in a tools list.
pub type ToolIssue = ListIssue<ToolsList>;

/// A tools list broke at least one rule; see [`ListErrors`].
pub type ToolsError = ListErrors<ToolsList>;

/// Checks a whole tools list against the rules of this module.
///
/// # Errors
/// [`ToolsError`] listing every problem found.
pub fn validate_tools(tools: &[Tool]) -> Result<(), ToolsError> {
    let mut issues = Vec::new();
    if tools.len() > MAX_TOOLS {
        issues.push(ToolIssue::new(
            None,
            "",
            format!("An app can have at most {MAX_TOOLS} tools"),
        ));
    }
    let mut seen_ids = HashSet::new();
    for (index, tool) in tools.iter().enumerate() {
        let mut push = |field: String, message: String| {
            issues.push(ToolIssue::new(Some(index), field, message));
        };
        if let Some(message) = text_problem(&tool.id, "Tool id", MAX_TOOL_ID_LEN) {
            push("id".into(), message);
        } else if !seen_ids.insert(tool.id.as_str()) {
            push(
                "id".into(),
                format!("Tool id \"{}\" is used more than once", tool.id),
            );
        }
        if let Some(message) = text_problem(&tool.description, "Tool description", MAX_TOOL_DESCRIPTION_LEN) {
            push("description".into(), message);
        }
        if tool.activation_phrases.len() > MAX_ACTIVATION_PHRASES {
            push(
                "activationPhrases".into(),
                format!("A tool can have at most {MAX_ACTIVATION_PHRASES} activation phrases"),
            );
        }
        for (position, phrase) in tool.activation_phrases.iter().enumerate() {
            if let Some(message) = text_problem(phrase, "Activation phrase", MAX_PHRASE_LEN) {
                push(format!("activationPhrases[{position}]"), message);
            }
        }
        if tool.parameters.len() > MAX_PARAMETERS {
            push(
                "parameters".into(),
                format!("A tool can have at most {MAX_PARAMETERS} parameters"),
            );
        }
        for (name, parameter) in &tool.parameters {
            if let Some(message) = text_problem(name, "Parameter name", MAX_PARAMETER_NAME_LEN) {
                push(format!("parameters.{name}"), message);
            }
            if parameter.description.chars().count() > MAX_PARAMETER_DESCRIPTION_LEN {
                push(
                    format!("parameters.{name}.description"),
                    format!(
                        "Parameter description must be at most {MAX_PARAMETER_DESCRIPTION_LEN} characters"
                    ),
                );
            }
            let allowed = parameter.allowed_values();
            if allowed.is_empty() {
                continue;
            }
            let field = format!("parameters.{name}.enum");
            if parameter.kind != ParameterType::String {
                push(
                    field.clone(),
                    "Only string parameters can have allowed values".into(),
                );
            }
            if allowed.len() > MAX_ENUM_VALUES {
                push(
                    field.clone(),
                    format!("A parameter can have at most {MAX_ENUM_VALUES} allowed values"),
                );
            }
            if let Some(message) = allowed
                .iter()
                .find_map(|v| text_problem(v, "Allowed value", MAX_ENUM_VALUE_LEN))
            {
                push(field, message);
            }
        }
    }
    ToolsError::from_issues(issues).map_or(Ok(()), Err)
}

/// "X is required" for a blank value, "X must be at most N characters" for a long one.
fn text_problem(value: &str, what: &str, max: usize) -> Option<String> {
    if value.trim().is_empty() {
        Some(format!("{what} is required"))
    } else if value.chars().count() > max {
        Some(format!("{what} must be at most {max} characters"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn parameter(kind: ParameterType, allowed: Option<Vec<&str>>) -> ToolParameter {
        ToolParameter {
            kind,
            description: "The city".into(),
            required: true,
            allowed: allowed.map(|values| values.into_iter().map(str::to_owned).collect()),
        }
    }

    fn tool(id: &str) -> Tool {
        Tool {
            id: id.into(),
            description: "Gets the weather".into(),
            activation_phrases: vec!["what's the weather".into()],
            parameters: IndexMap::from([(
                "city".to_owned(),
                parameter(ParameterType::String, Some(vec!["Paris"])),
            )]),
        }
    }

    fn messages(tools: &[Tool]) -> Vec<String> {
        validate_tools(tools)
            .err()
            .map(|e| e.issues().iter().map(|i| i.message.clone()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn a_comma_list_is_trimmed_and_drops_empty_items() {
        assert_eq!(
            parse_comma_list(" hey weather , , forecast,"),
            ["hey weather", "forecast"]
        );
        assert!(parse_comma_list("").is_empty());
        assert!(parse_comma_list(" , ,").is_empty());
        assert_eq!(parse_comma_list("one"), ["one"]);
    }

    #[test]
    fn a_joined_list_reads_back_the_same() {
        let items = vec!["a b".to_owned(), "c".to_owned()];
        assert_eq!(join_comma_list(&items), "a b, c");
        assert_eq!(parse_comma_list(&join_comma_list(&items)), items);
    }

    #[test]
    fn parameter_types_read_their_three_wire_forms() {
        for &kind in ParameterType::ALL {
            assert_eq!(ParameterType::parse(kind.code()), Some(kind));
        }
        assert_eq!(ParameterType::parse("integer"), None);
    }

    #[test]
    fn a_well_formed_tool_list_is_valid() {
        assert_eq!(validate_tools(&[tool("weather"), tool("news")]), Ok(()));
        assert_eq!(validate_tools(&[]), Ok(()));
    }

    #[test]
    fn a_tool_needs_an_id_and_a_description() {
        let mut blank = tool(" ");
        blank.description = String::new();
        let error = validate_tools(&[blank]).unwrap_err();
        assert_eq!(
            error.fields().to_map(),
            BTreeMap::from([
                ("tools[0].id".to_owned(), "Tool id is required".to_owned()),
                (
                    "tools[0].description".to_owned(),
                    "Tool description is required".to_owned()
                ),
            ])
        );
        assert_eq!(error.to_string(), "Tool at index 0: Tool id is required");
    }

    #[test]
    fn tool_ids_must_be_unique_within_an_app() {
        let error = validate_tools(&[tool("weather"), tool("weather")]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Tool at index 1: Tool id \"weather\" is used more than once"
        );
        assert_eq!(error.first().path(), "tools[1].id");
    }

    #[test]
    fn the_character_set_of_tool_ids_is_not_enforced() {
        assert_eq!(validate_tools(&[tool("get weather!")]), Ok(()));
    }

    #[test]
    fn parameter_names_must_not_be_empty() {
        let mut blank = tool("t");
        blank
            .parameters
            .insert(" ".into(), parameter(ParameterType::Number, None));
        assert_eq!(messages(&[blank]), ["Parameter name is required"]);
    }

    #[test]
    fn only_string_parameters_may_list_allowed_values() {
        let mut numeric = tool("t");
        numeric.parameters.insert(
            "days".into(),
            parameter(ParameterType::Number, Some(vec!["1", "2"])),
        );
        let error = validate_tools(&[numeric]).unwrap_err();
        assert_eq!(error.first().path(), "tools[0].parameters.days.enum");
        assert_eq!(
            error.first().message,
            "Only string parameters can have allowed values"
        );
    }

    #[test]
    fn an_empty_enum_list_counts_as_none_and_is_dropped_on_export() {
        let mut with_empty = tool("t");
        with_empty
            .parameters
            .insert("flag".into(), parameter(ParameterType::Boolean, Some(vec![])));
        assert_eq!(validate_tools(std::slice::from_ref(&with_empty)), Ok(()));
        let cleaned = with_empty.without_empty_enums();
        assert_eq!(cleaned.parameters["flag"].allowed, None);
        assert_eq!(cleaned.parameters["city"].allowed_values(), ["Paris"]);
    }

    #[test]
    fn blank_activation_phrases_and_allowed_values_are_refused() {
        let mut blank = tool("t");
        blank.activation_phrases.push("  ".into());
        blank.parameters.insert(
            "mode".into(),
            parameter(ParameterType::String, Some(vec!["a", ""])),
        );
        assert_eq!(
            messages(&[blank]),
            ["Activation phrase is required", "Allowed value is required"]
        );
    }

    #[test]
    fn tool_fields_have_length_caps() {
        let mut long = tool(&"i".repeat(MAX_TOOL_ID_LEN + 1));
        long.description = "d".repeat(MAX_TOOL_DESCRIPTION_LEN + 1);
        long.activation_phrases = vec!["p".repeat(MAX_PHRASE_LEN + 1)];
        long.parameters.insert(
            "n".repeat(MAX_PARAMETER_NAME_LEN + 1),
            parameter(ParameterType::Number, None),
        );
        long.parameters.insert(
            "x".into(),
            ToolParameter {
                description: "d".repeat(MAX_PARAMETER_DESCRIPTION_LEN + 1),
                ..parameter(
                    ParameterType::String,
                    Some(vec![&"v".repeat(MAX_ENUM_VALUE_LEN + 1)]),
                )
            },
        );
        assert_eq!(
            messages(&[long]),
            [
                "Tool id must be at most 100 characters",
                "Tool description must be at most 2000 characters",
                "Activation phrase must be at most 200 characters",
                "Parameter name must be at most 100 characters",
                "Parameter description must be at most 1000 characters",
                "Allowed value must be at most 200 characters",
            ]
        );
    }

    #[test]
    fn list_sizes_are_capped() {
        let tools: Vec<Tool> = (0..=MAX_TOOLS).map(|i| tool(&format!("t{i}"))).collect();
        assert_eq!(messages(&tools), ["An app can have at most 100 tools"]);

        let mut crowded = tool("t");
        crowded.activation_phrases = (0..=MAX_ACTIVATION_PHRASES).map(|i| format!("p{i}")).collect();
        crowded.parameters = (0..=MAX_PARAMETERS)
            .map(|i| (format!("p{i}"), parameter(ParameterType::Boolean, None)))
            .collect();
        let values: Vec<String> = (0..=MAX_ENUM_VALUES).map(|i| format!("v{i}")).collect();
        crowded.parameters[0] = ToolParameter {
            allowed: Some(values),
            ..parameter(ParameterType::String, None)
        };
        assert_eq!(
            messages(&[crowded]),
            [
                "A tool can have at most 50 activation phrases",
                "A tool can have at most 50 parameters",
                "A parameter can have at most 100 allowed values",
            ]
        );
    }

    #[test]
    fn a_tool_reads_and_writes_the_sdk_json_shape() {
        let json = serde_json::json!({
            "id": "weather",
            "description": "Gets the weather",
            "activationPhrases": ["weather"],
            "parameters": {"city": {"type": "string", "description": "The city", "required": true, "enum": ["Paris"]}}
        });
        let parsed: Tool = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(parsed.parameters["city"].kind, ParameterType::String);
        assert_eq!(serde_json::to_value(&parsed).unwrap(), json);
    }
}
