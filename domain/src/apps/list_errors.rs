//! Problems found in one of an app's lists (settings, tools): each problem knows the entry's position and
//! the field inside it, so the HTTP layer can answer a `fields` map such as `settings[2].options[0].label`.

use std::fmt;
use std::marker::PhantomData;

use crate::common::FieldErrors;

/// Which list a problem belongs to.
pub trait ListKind: fmt::Debug + Clone + PartialEq + Eq + 'static {
    /// The list's name in the API (`settings`).
    const LIST: &'static str;
    /// What one entry is called in messages (`Setting`).
    const ITEM: &'static str;
}

/// One problem found in a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListIssue<K: ListKind> {
    /// The position of the entry in the list; `None` for a problem of the whole list.
    pub index: Option<usize>,
    /// The field inside the entry in camelCase (`key`, `options[1].label`, `parameters.city.enum`); empty
    /// for a problem of the whole entry or list.
    pub field: String,
    pub message: String,
    kind: PhantomData<K>,
}

impl<K: ListKind> ListIssue<K> {
    pub fn new(index: Option<usize>, field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            index,
            field: field.into(),
            message: message.into(),
            kind: PhantomData,
        }
    }

    /// Where the problem is, as the API's `fields` map names it: `tools`, `tools[1]`, `tools[1].id`.
    #[must_use]
    pub fn path(&self) -> String {
        let mut path = String::from(K::LIST);
        if let Some(index) = self.index {
            path.push_str(&format!("[{index}]"));
        }
        if !self.field.is_empty() {
            path.push('.');
            path.push_str(&self.field);
        }
        path
    }
}

impl<K: ListKind> fmt::Display for ListIssue<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(index) => write!(f, "{} at index {index}: {}", K::ITEM, self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A list broke at least one rule. The HTTP layer answers 400 with [`ListErrors::fields`]; the message is
/// the first problem, naming the entry's index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.first())]
pub struct ListErrors<K: ListKind> {
    /// Never empty.
    issues: Vec<ListIssue<K>>,
}

impl<K: ListKind> ListErrors<K> {
    /// `None` when there is no issue.
    #[must_use]
    pub fn from_issues(issues: Vec<ListIssue<K>>) -> Option<Self> {
        (!issues.is_empty()).then_some(Self { issues })
    }

    /// Every problem, in list order.
    #[must_use]
    pub fn issues(&self) -> &[ListIssue<K>] {
        &self.issues
    }

    /// The first problem (there is always one: see [`ListErrors::from_issues`]).
    #[must_use]
    pub fn first(&self) -> &ListIssue<K> {
        &self.issues[0]
    }

    /// Field path → message (the first message for each path), in list order.
    #[must_use]
    pub fn fields(&self) -> FieldErrors {
        self.issues
            .iter()
            .map(|issue| (issue.path(), issue.message.clone()))
            .collect()
    }
}

/// The settings list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsList;

impl ListKind for SettingsList {
    const LIST: &'static str = "settings";
    const ITEM: &'static str = "Setting";
}

/// The tools list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolsList;

impl ListKind for ToolsList {
    const LIST: &'static str = "tools";
    const ITEM: &'static str = "Tool";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_names_the_list_the_entry_and_the_field() {
        let issue = ListIssue::<ToolsList>::new(Some(1), "parameters.city.enum", "x");
        assert_eq!(issue.path(), "tools[1].parameters.city.enum");
        assert_eq!(ListIssue::<SettingsList>::new(None, "", "x").path(), "settings");
    }

    #[test]
    fn the_message_names_the_entrys_index() {
        let issue = ListIssue::<SettingsList>::new(Some(2), "key", "Setting key is required");
        assert_eq!(issue.to_string(), "Setting at index 2: Setting key is required");
    }

    #[test]
    fn an_empty_list_of_issues_is_no_error_and_fields_keep_the_first_message_per_path() {
        assert!(ListErrors::<ToolsList>::from_issues(vec![]).is_none());
        let errors = ListErrors::<ToolsList>::from_issues(vec![
            ListIssue::new(Some(0), "id", "first"),
            ListIssue::new(Some(0), "id", "second"),
        ])
        .unwrap();
        assert_eq!(errors.fields().get("tools[0].id"), Some("first"));
        assert_eq!(errors.to_string(), "Tool at index 0: first");
    }
}
