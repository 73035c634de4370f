//! Property tests of the settings editor: every valid setting converts to every type as a setting that
//! validates (see [`convert_setting`](super::convert_setting) for the one exception, a keyed setting made
//! from a key-less one), and conversions between keyed kinds keep key and label.

use proptest::prelude::*;
use serde_json::Value;

use super::{SECONDS_PER_DAY, SelectOption, Setting, SettingType, convert_setting, validate_settings};

fn label_strategy() -> impl Strategy<Value = String> {
    "[A-Za-z][A-Za-z0-9 ]{0,15}"
}

fn value_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z0-9]{0,8}".prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        (-1000.0f64..1000.0).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
    ]
}

fn options_strategy() -> impl Strategy<Value = Vec<SelectOption>> {
    prop::collection::vec((label_strategy(), value_strategy()), 1..5).prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(label, value)| SelectOption::new(label, value))
            .collect()
    })
}

/// Any setting that passes [`validate_settings`] on its own.
fn valid_setting() -> impl Strategy<Value = Setting> {
    let key = "[a-z][a-z0-9_]{0,10}";
    let bounds = (-1000.0f64..1000.0, 0.0f64..1000.0, 0.0f64..=1.0)
        .prop_map(|(min, span, at)| (min, min + span, min + span * at));
    prop_oneof![
        label_strategy().prop_map(|title| Setting::Group { title }),
        (label_strategy(), value_strategy()).prop_map(|(label, value)| Setting::TitleValue { label, value }),
        (key, label_strategy(), any::<bool>()).prop_map(|(key, label, default_value)| Setting::Toggle {
            key,
            label,
            default_value
        }),
        (key, label_strategy(), "\\PC{0,20}").prop_map(|(key, label, default_value)| Setting::Text {
            key,
            label,
            default_value
        }),
        (key, label_strategy(), "\\PC{0,20}", prop::option::of(1u32..10)).prop_map(
            |(key, label, default_value, max_lines)| Setting::TextNoSaveButton {
                key,
                label,
                default_value,
                max_lines
            }
        ),
        (
            key,
            label_strategy(),
            options_strategy(),
            any::<prop::sample::Index>(),
            any::<bool>()
        )
            .prop_map(|(key, label, options, pick, with_default)| {
                let default_value = with_default.then(|| options[pick.index(options.len())].value.clone());
                Setting::Select {
                    key,
                    label,
                    options,
                    default_value,
                }
            }),
        (
            key,
            label_strategy(),
            options_strategy(),
            any::<prop::sample::Index>()
        )
            .prop_map(|(key, label, options, pick)| {
                let default_value = Some(options[pick.index(options.len())].value.clone());
                Setting::SelectWithSearch {
                    key,
                    label,
                    options,
                    default_value,
                }
            }),
        (
            key,
            label_strategy(),
            options_strategy(),
            prop::collection::vec(any::<prop::sample::Index>(), 0..3)
        )
            .prop_map(|(key, label, options, picks)| {
                let default_value = picks
                    .iter()
                    .map(|p| options[p.index(options.len())].value.clone())
                    .collect();
                Setting::Multiselect {
                    key,
                    label,
                    options,
                    default_value,
                }
            }),
        (key, label_strategy(), bounds.clone()).prop_map(|(key, label, (min, max, default_value))| {
            Setting::Slider {
                key,
                label,
                min,
                max,
                default_value,
            }
        }),
        (
            key,
            label_strategy(),
            bounds,
            any::<bool>(),
            any::<bool>(),
            prop::option::of(0.1f64..10.0)
        )
            .prop_map(
                |(key, label, (min, max, default_value), has_min, has_max, step)| Setting::NumericInput {
                    key,
                    label,
                    min: has_min.then_some(min),
                    max: has_max.then_some(max),
                    step,
                    placeholder: None,
                    default_value,
                }
            ),
        (key, label_strategy(), 0u32..SECONDS_PER_DAY, any::<bool>()).prop_map(
            |(key, label, default_value, show_seconds)| Setting::TimePicker {
                key,
                label,
                default_value,
                show_seconds
            }
        ),
    ]
}

fn target_type() -> impl Strategy<Value = SettingType> {
    prop::sample::select(SettingType::ALL.to_vec())
}

/// Fills in the key a keyed setting made from a `group` or `titleValue` lacks.
fn with_key_filled(mut setting: Setting) -> Setting {
    match &mut setting {
        Setting::Group { .. } | Setting::TitleValue { .. } => {}
        Setting::Toggle { key, .. }
        | Setting::Text { key, .. }
        | Setting::TextNoSaveButton { key, .. }
        | Setting::Select { key, .. }
        | Setting::SelectWithSearch { key, .. }
        | Setting::Multiselect { key, .. }
        | Setting::Slider { key, .. }
        | Setting::NumericInput { key, .. }
        | Setting::TimePicker { key, .. } => {
            if key.is_empty() {
                "filled".clone_into(key);
            }
        }
    }
    setting
}

proptest! {
    /// The generator only produces valid settings, so the properties below are about valid input.
    #[test]
    fn generated_settings_are_valid(setting in valid_setting()) {
        prop_assert_eq!(validate_settings(&[setting]), Ok(()));
    }

    /// Property: converting a valid setting to any type gives a setting that validates on its own,
    /// once the key is filled in where the source had none (a keyed setting made from a group or a
    /// titleValue); converting a keyed setting needs nothing filled in.
    #[test]
    fn a_converted_valid_setting_validates(setting in valid_setting(), to in target_type()) {
        let converted = convert_setting(&setting, to);
        prop_assert_eq!(converted.setting_type(), to);
        if setting.setting_type().is_keyed() {
            prop_assert_eq!(validate_settings(std::slice::from_ref(&converted)), Ok(()));
        }
        prop_assert_eq!(validate_settings(&[with_key_filled(converted)]), Ok(()));
    }

    /// Property: between keyed kinds the key and label never change.
    #[test]
    fn keyed_to_keyed_conversion_keeps_key_and_label(setting in valid_setting(), to in target_type()) {
        prop_assume!(setting.setting_type().is_keyed() && to.is_keyed());
        let converted = convert_setting(&setting, to);
        prop_assert_eq!(converted.key(), setting.key());
        prop_assert_eq!(converted.label(), setting.label());
    }
}
