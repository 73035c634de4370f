//! The checks on a chosen file before its contents are looked at (specification §5).

use serde_json::Value;

use super::{AppConfig, ConfigFileError, ImportError, validate_config};

/// Checks a chosen file and parses it: the name must end in `.json` (in any letter case), the contents
/// must hold more than white space, and they must be JSON (a leading byte-order mark is ignored).
///
/// # Errors
/// [`ConfigFileError::NotAJsonFile`], [`ConfigFileError::Empty`] or [`ConfigFileError::InvalidJson`], in
/// that order of checking.
pub fn check_config_file(file_name: &str, contents: &str) -> Result<Value, ConfigFileError> {
    if !file_name.trim().to_ascii_lowercase().ends_with(".json") {
        return Err(ConfigFileError::NotAJsonFile);
    }
    let contents = contents.strip_prefix('\u{feff}').unwrap_or(contents);
    if contents.trim().is_empty() {
        return Err(ConfigFileError::Empty);
    }
    serde_json::from_str(contents).map_err(|_| ConfigFileError::InvalidJson)
}

/// The whole reading step of an import: [`check_config_file`] then [`validate_config`].
///
/// # Errors
/// [`ImportError::File`] from the file checks, [`ImportError::Config`] from the configuration checks.
pub fn read_config_file(file_name: &str, contents: &str) -> Result<AppConfig, ImportError> {
    let value = check_config_file(file_name, contents)?;
    Ok(validate_config(&value)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::config::ConfigError;
    use serde_json::json;

    #[test]
    fn a_file_whose_name_does_not_end_in_json_is_refused() {
        for name in ["config.txt", "config.json.bak", "config", "json"] {
            assert_eq!(
                check_config_file(name, "{}"),
                Err(ConfigFileError::NotAJsonFile),
                "{name}"
            );
        }
        assert_eq!(
            ConfigFileError::NotAJsonFile.to_string(),
            "Please select a JSON file."
        );
    }

    #[test]
    fn the_json_extension_is_read_in_any_letter_case() {
        assert_eq!(check_config_file("CONFIG.JSON", "{}"), Ok(json!({})));
    }

    #[test]
    fn an_empty_or_blank_file_is_refused() {
        assert_eq!(check_config_file("a.json", ""), Err(ConfigFileError::Empty));
        assert_eq!(check_config_file("a.json", " \n\t "), Err(ConfigFileError::Empty));
        assert_eq!(ConfigFileError::Empty.to_string(), "The selected file is empty.");
    }

    #[test]
    fn contents_that_are_not_json_are_refused() {
        assert_eq!(
            check_config_file("a.json", "{name: 1}"),
            Err(ConfigFileError::InvalidJson)
        );
        assert_eq!(
            check_config_file("a.json", "{\"a\": 1} trailing"),
            Err(ConfigFileError::InvalidJson)
        );
        assert_eq!(
            ConfigFileError::InvalidJson.to_string(),
            "Invalid JSON format. Please check the file content."
        );
    }

    #[test]
    fn a_leading_byte_order_mark_is_ignored() {
        assert_eq!(
            check_config_file("a.json", "\u{feff}{\"name\": \"A\"}"),
            Ok(json!({"name": "A"}))
        );
    }

    #[test]
    fn any_json_value_passes_the_file_checks_and_the_shape_is_checked_next() {
        assert_eq!(check_config_file("a.json", "[1]"), Ok(json!([1])));
        assert_eq!(
            read_config_file("a.json", "[1]"),
            Err(ImportError::Config(ConfigError::NotAnObject))
        );
        assert_eq!(
            read_config_file("a.txt", "[1]"),
            Err(ImportError::File(ConfigFileError::NotAJsonFile))
        );
        let config = read_config_file("a.json", "{\"name\": \"Weather\"}").unwrap();
        assert_eq!(config.fields.name.as_deref(), Some("Weather"));
    }
}
