//! The error a settings list that breaks a rule of [`validate_settings`](super::validate_settings) gives.

use std::collections::BTreeMap;
use std::fmt;

/// One problem found in a settings list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingIssue {
    /// The position of the setting in the list; `None` for a problem of the whole list.
    pub index: Option<usize>,
    /// The field inside the setting in camelCase (`key`, `defaultValue`, `options[1].label`); empty for a
    /// problem of the whole setting or list.
    pub field: String,
    pub message: String,
}

impl SettingIssue {
    /// Where the problem is, as the API's `fields` map names it: `settings`, `settings[2]`,
    /// `settings[2].options[0].label`.
    #[must_use]
    pub fn path(&self) -> String {
        let mut path = String::from("settings");
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

impl fmt::Display for SettingIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(index) => write!(f, "Setting at index {index}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A settings list broke at least one rule. The HTTP layer answers 400 with [`SettingsError::fields`];
/// the message is the first problem, naming the setting's index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.first())]
pub struct SettingsError {
    issues: Vec<SettingIssue>,
}

impl SettingsError {
    /// `None` when there is no issue.
    pub(super) fn from_issues(issues: Vec<SettingIssue>) -> Option<Self> {
        (!issues.is_empty()).then_some(Self { issues })
    }

    /// Every problem, in list order.
    #[must_use]
    pub fn issues(&self) -> &[SettingIssue] {
        &self.issues
    }

    /// The first problem (there is always one).
    #[must_use]
    pub fn first(&self) -> &SettingIssue {
        &self.issues[0]
    }

    /// Field path → message (the first message for each path).
    #[must_use]
    pub fn fields(&self) -> BTreeMap<String, String> {
        let mut fields = BTreeMap::new();
        for issue in &self.issues {
            fields
                .entry(issue.path())
                .or_insert_with(|| issue.message.clone());
        }
        fields
    }
}
