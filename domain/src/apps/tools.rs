//! AI tools an app exposes (specification §3).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParameterType {
    String,
    Number,
    Boolean,
}

/// One parameter of a tool. `enum` lists allowed values (strings only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolParameter {
    #[serde(rename = "type")]
    pub kind: ParameterType,
    pub description: String,
    #[serde(default)]
    pub required: bool,
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<String>>,
}

/// An AI tool: an id, a description, the phrases that activate it, and its parameters by name (in the
/// order they were defined).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub id: String,
    pub description: String,
    #[serde(default)]
    pub activation_phrases: Vec<String>,
    #[serde(default)]
    pub parameters: IndexMap<String, ToolParameter>,
}
