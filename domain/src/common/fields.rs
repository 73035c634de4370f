//! Validation failures by field, for the `fields` member of the API's error body (PRODUCT.md §6).

use indexmap::IndexMap;
use std::collections::BTreeMap;
use std::fmt;

/// Field name as the API spells it (camelCase, or a path such as `settings[2].options[0].label`) → the
/// message. Fields keep the order they were found in (validators check in form order), and the first
/// message recorded for a field wins. `Display` is the first message: the summary of the failure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldErrors(IndexMap<String, String>);

impl FieldErrors {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// One failing field.
    #[must_use]
    pub fn single(field: impl Into<String>, message: impl Into<String>) -> Self {
        let mut errors = Self::new();
        errors.add(field, message);
        errors
    }

    /// Records a failure; a field that already failed keeps its first message.
    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.entry(field.into()).or_insert_with(|| message.into());
    }

    /// Records every failure of `other` (see [`FieldErrors::add`]).
    pub fn merge(&mut self, other: impl IntoIterator<Item = (String, String)>) {
        for (field, message) in other {
            self.add(field, message);
        }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The message of one field, if it failed.
    #[must_use]
    pub fn get(&self, field: &str) -> Option<&str> {
        self.0.get(field).map(String::as_str)
    }

    #[must_use]
    pub fn contains(&self, field: &str) -> bool {
        self.0.contains_key(field)
    }

    /// The failing fields, in the order they were found.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// The failing fields, in the order they were found (same as [`FieldErrors::fields`]).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.fields()
    }

    /// (field, message) pairs, in the order they were found.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The first message recorded (the summary), or `"Invalid input"` when empty.
    #[must_use]
    pub fn first_message(&self) -> &str {
        self.0.values().next().map_or("Invalid input", String::as_str)
    }

    /// Every message, in order, joined by `separator`.
    #[must_use]
    pub fn joined(&self, separator: &str) -> String {
        self.0
            .values()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(separator)
    }

    /// The map the HTTP error body carries.
    #[must_use]
    pub fn to_map(&self) -> BTreeMap<String, String> {
        self.0.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

impl fmt::Display for FieldErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.first_message())
    }
}

impl std::error::Error for FieldErrors {}

/// `errors["name"]`: the message of a field that failed.
///
/// # Panics
/// When the field did not fail (use [`FieldErrors::get`] to ask).
impl std::ops::Index<&str> for FieldErrors {
    type Output = String;
    fn index(&self, field: &str) -> &String {
        match self.0.get(field) {
            Some(message) => message,
            None => panic!("the field {field} did not fail"),
        }
    }
}

impl<F: Into<String>, M: Into<String>> FromIterator<(F, M)> for FieldErrors {
    fn from_iter<I: IntoIterator<Item = (F, M)>>(iter: I) -> Self {
        let mut errors = Self::new();
        for (field, message) in iter {
            errors.add(field, message);
        }
        errors
    }
}

impl<F: Into<String>, M: Into<String>, const N: usize> From<[(F, M); N]> for FieldErrors {
    fn from(pairs: [(F, M); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl IntoIterator for FieldErrors {
    type Item = (String, String);
    type IntoIter = indexmap::map::IntoIter<String, String>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_message_of_a_field_wins_and_order_is_kept() {
        let mut errors = FieldErrors::single("name", "Display name is required");
        errors.add("description", "Description is required");
        errors.add("name", "a later message");
        assert_eq!(errors.get("name"), Some("Display name is required"));
        assert_eq!(errors.fields().collect::<Vec<_>>(), ["name", "description"]);
        assert_eq!(errors.to_string(), "Display name is required");
        assert_eq!(
            errors.joined("; "),
            "Display name is required; Description is required"
        );
    }

    #[test]
    fn merging_keeps_existing_messages() {
        let mut errors = FieldErrors::single("settings[0].key", "first");
        errors.merge(FieldErrors::from([
            ("settings[0].key", "second"),
            ("tools[1].id", "third"),
        ]));
        assert_eq!(errors.len(), 2);
        assert_eq!(errors.get("settings[0].key"), Some("first"));
        assert_eq!(errors.to_map()["tools[1].id"], "third");
    }

    #[test]
    fn an_empty_map_summarises_as_invalid_input() {
        assert!(FieldErrors::new().is_empty());
        assert_eq!(FieldErrors::new().first_message(), "Invalid input");
    }
}
