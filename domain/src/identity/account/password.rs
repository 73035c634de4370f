//! The password policy (PRODUCT.md §1, OWASP ASVS 5.0 level 2): 12 to 128 characters, no composition rules,
//! not the account's own e-mail address, and strong enough by zxcvbn's estimate (score 3 or more: at least
//! about 10¹⁰ guesses), with the account's e-mail address and name as words an attacker would try first.
//! The browser's strength meter runs the same algorithm (`@zxcvbn-ts`), so what it shows is what the server
//! decides.

use zxcvbn::Score;
use zxcvbn::feedback::Warning;

use crate::common::EmailAddress;

/// Fewest characters (Unicode scalar values, not bytes).
pub const MIN_PASSWORD_CHARS: usize = 12;
/// Most characters.
pub const MAX_PASSWORD_CHARS: usize = 128;
/// The weakest zxcvbn score accepted.
pub const MIN_PASSWORD_SCORE: u8 = 3;

pub const PASSWORD_REQUIRED: &str = "Password is required";
pub const PASSWORD_TOO_SHORT: &str = "Password must be at least 12 characters";
pub const PASSWORD_TOO_LONG: &str = "Password must be at most 128 characters";
pub const PASSWORD_TOO_COMMON: &str = "This password is too common. Choose a less common one.";
pub const PASSWORD_IS_EMAIL: &str = "Password must not be your email address or a part of it";
pub const PASSWORD_TOO_WEAK: &str = "Password is too weak: names, dates, common words and keyboard patterns \
     are easy to guess, even with digits or symbols added. Use a few unrelated words instead.";

/// Why a password was refused. The Display texts are the messages shown to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    #[error("{}", PASSWORD_REQUIRED)]
    Required,
    #[error("{}", PASSWORD_TOO_SHORT)]
    TooShort,
    #[error("{}", PASSWORD_TOO_LONG)]
    TooLong,
    /// zxcvbn found it (or something very like it) among commonly used passwords.
    #[error("{}", PASSWORD_TOO_COMMON)]
    TooCommon,
    #[error("{}", PASSWORD_IS_EMAIL)]
    SameAsEmail,
    #[error("{}", PASSWORD_TOO_WEAK)]
    TooWeak,
}

/// Who the password is for: the words an attacker would try first.
#[derive(Debug, Clone, Copy, Default)]
pub struct PasswordOwner<'a> {
    pub email: Option<&'a EmailAddress>,
    /// The account's display name, if any.
    pub name: Option<&'a str>,
}

impl PasswordOwner<'_> {
    /// The e-mail address, its local part and domain, and the name and its words, lower-cased.
    fn user_inputs(&self) -> Vec<String> {
        let mut inputs = Vec::new();
        if let Some(email) = self.email {
            inputs.push(email.as_str().to_owned());
            inputs.extend(email.as_str().split(['@', '.', '_', '-', '+']).map(str::to_owned));
        }
        if let Some(name) = self.name {
            inputs.push(name.to_lowercase());
            inputs.extend(name.to_lowercase().split_whitespace().map(str::to_owned));
        }
        inputs.retain(|input| input.chars().count() >= 2);
        inputs
    }
}

/// Checks a new password, in this order: present, at least 12 characters, at most 128 characters, not the
/// e-mail address or its local part (case-insensitive), then zxcvbn's score with the owner's e-mail and
/// name as user inputs: below [`MIN_PASSWORD_SCORE`] it is too common (when zxcvbn says it is, or is like,
/// a commonly used password) or too weak.
///
/// # Errors
/// The first [`PasswordError`] that applies.
pub fn check_password(password: &str, owner: PasswordOwner<'_>) -> Result<(), PasswordError> {
    if password.is_empty() {
        return Err(PasswordError::Required);
    }
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Err(PasswordError::TooShort);
    }
    if chars > MAX_PASSWORD_CHARS {
        return Err(PasswordError::TooLong);
    }
    let lowered = password.to_lowercase();
    if let Some(email) = owner.email
        && (lowered == email.as_str() || lowered == email.local_part())
    {
        return Err(PasswordError::SameAsEmail);
    }
    let inputs = owner.user_inputs();
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let estimate = zxcvbn::zxcvbn(password, &inputs);
    if u8::from(estimate.score()) >= MIN_PASSWORD_SCORE {
        return Ok(());
    }
    let common = matches!(
        estimate.feedback().and_then(zxcvbn::feedback::Feedback::warning),
        Some(
            Warning::ThisIsATop10Password
                | Warning::ThisIsATop100Password
                | Warning::ThisIsACommonPassword
                | Warning::ThisIsSimilarToACommonlyUsedPassword
        )
    );
    debug_assert!(estimate.score() < Score::Three);
    Err(if common {
        PasswordError::TooCommon
    } else {
        PasswordError::TooWeak
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn email(text: &str) -> EmailAddress {
        EmailAddress::parse(text).unwrap()
    }

    fn check(password: &str) -> Result<(), PasswordError> {
        check_password(password, PasswordOwner::default())
    }

    #[test]
    fn a_long_uncommon_password_is_accepted() {
        assert_eq!(check("violet-harbour-tram-42"), Ok(()));
    }

    #[test]
    fn an_empty_password_is_required() {
        assert_eq!(check(""), Err(PasswordError::Required));
        assert_eq!(PasswordError::Required.to_string(), "Password is required");
    }

    #[test]
    fn eleven_characters_are_too_short_and_twelve_are_enough() {
        assert_eq!(check("kx9!vb2#qm7"), Err(PasswordError::TooShort));
        assert_eq!(check("kx9!vb2#qm7z"), Ok(()));
        assert_eq!(
            PasswordError::TooShort.to_string(),
            "Password must be at least 12 characters"
        );
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        // Eleven two-byte characters are 22 bytes but still too short; twelve are enough.
        assert_eq!(check("éééééñüöäßç"), Err(PasswordError::TooShort));
        assert_eq!(check("éñüöäßçøåæœð"), Ok(()));
    }

    #[test]
    fn more_than_128_characters_are_too_long() {
        let ok: String = "violet-harbour-tram-42 ".repeat(6).chars().take(128).collect();
        assert_eq!(check(&ok), Ok(()));
        assert_eq!(check(&format!("{ok}x")), Err(PasswordError::TooLong));
        assert_eq!(
            PasswordError::TooLong.to_string(),
            "Password must be at most 128 characters"
        );
    }

    #[test]
    fn well_known_breached_passwords_of_twelve_characters_or_more_are_refused() {
        for breached in [
            "elizabeth123",
            "manchesterunited",
            "Aa123456789!",
            "qwertyuiop123",
            "PassWord1234",
            "sunshine2024!",
            "iloveyou1234",
            "1qaz2wsx3edc",
            "abcdefghijkl",
            "123456789012",
        ] {
            assert!(check(breached).is_err(), "{breached}");
        }
    }

    #[test]
    fn a_common_password_says_so_and_a_dressed_up_word_is_too_weak() {
        assert_eq!(check("password1234"), Err(PasswordError::TooCommon));
        assert_eq!(
            PasswordError::TooCommon.to_string(),
            "This password is too common. Choose a less common one."
        );
        for weak in ["zzzzzzzzzzzzzzz", "474747474747", "elizabeth1234"] {
            assert_eq!(check(weak), Err(PasswordError::TooWeak), "{weak}");
        }
        assert!(
            PasswordError::TooWeak
                .to_string()
                .starts_with("Password is too weak: ")
        );
    }

    #[test]
    fn the_email_address_or_its_local_part_is_refused_case_insensitively() {
        let address = email("ada.lovelace@example.com");
        let owner = PasswordOwner {
            email: Some(&address),
            name: None,
        };
        assert_eq!(
            check_password("Ada.Lovelace@Example.com", owner),
            Err(PasswordError::SameAsEmail)
        );
        assert_eq!(
            check_password("ADA.LOVELACE", owner),
            Err(PasswordError::SameAsEmail)
        );
        assert_eq!(
            PasswordError::SameAsEmail.to_string(),
            "Password must not be your email address or a part of it"
        );
    }

    #[test]
    fn the_owners_name_and_address_count_as_easy_words() {
        // Strong enough for a stranger, weak for the person it names.
        let candidate = "ada lovelace 1815";
        assert_eq!(check(candidate), Ok(()));
        let address = email("ada.lovelace@example.com");
        let owner = PasswordOwner {
            email: Some(&address),
            name: Some("Ada Lovelace"),
        };
        assert!(check_password(candidate, owner).is_err());
    }

    #[test]
    fn passphrases_and_random_strings_are_strong_enough() {
        for strong in [
            "violet-harbour-tram-42",
            "a sufficiently long passphrase 42",
            "glasses are the next screen 42",
            "kx9!vb2#qm7z",
            "correct horse battery staple",
            "Sunshine over the harbour 7",
        ] {
            assert_eq!(check(strong), Ok(()), "{strong}");
        }
    }
}
