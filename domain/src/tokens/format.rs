//! What a personal access token looks like, and what it may do.
//!
//! A token reads `dpt_` + 22 base62 characters (its id, 128 bits) + 32 base62 characters (its secret,
//! about 190 bits) + 6 base62 characters (the CRC-32 of everything before them): 64 characters that a
//! secret scanner recognises by the prefix and the checksum, and whose typos are caught by the checksum
//! before anything is read. Only a keyed digest of the secret is stored ([`crate::identity::DigestKey`]).

use uuid::Uuid;

/// The fixed start of every access token.
pub const PREFIX: &str = crate::common::ACCESS_TOKEN_PREFIX;
const ID_CHARS: usize = 22;
const SECRET_CHARS: usize = 32;
const CHECKSUM_CHARS: usize = 6;
/// The length of every access token.
pub const TOKEN_CHARS: usize = PREFIX.len() + ID_CHARS + SECRET_CHARS + CHECKSUM_CHARS;
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

pub use crate::common::credential::{Scope, Scopes};

/// A token as presented, once its form and checksum are right: the id to look up and the secret to
/// compare with the stored digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresentedToken<'a> {
    pub id: Uuid,
    pub secret: &'a str,
}

/// Why a bearer is not an access token that can be looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatError {
    /// It does not start with [`PREFIX`]: not meant as an access token.
    NotAnAccessToken,
    /// It starts like one but its length, characters or checksum are wrong (a typo, or cut short).
    Mistyped,
}

/// Writes the token of `id` with `secret` (which must be [`SECRET_CHARS`] base62 characters).
#[must_use]
pub fn write(id: Uuid, secret: &str) -> String {
    let mut token = String::with_capacity(TOKEN_CHARS);
    token.push_str(PREFIX);
    token.push_str(&base62(id.as_u128(), ID_CHARS));
    token.push_str(secret);
    let checksum = crc32(token.as_bytes());
    token.push_str(&base62(u128::from(checksum), CHECKSUM_CHARS));
    token
}

/// A secret of [`SECRET_CHARS`] base62 characters from random bytes (at least 24 are used).
#[must_use]
pub fn secret_from(bytes: &[u8]) -> String {
    // 62^32 > 2^190: 24 random bytes (192 bits) reduced into the alphabet, a few bits at a time.
    let mut value = BigNum(bytes.iter().take(24).copied().collect());
    (0..SECRET_CHARS)
        .map(|_| char::from(BASE62[value.take_digit(62)]))
        .collect()
}

/// Reads a presented bearer: its id and secret when the form and the checksum are right.
///
/// # Errors
/// [`FormatError`].
pub fn read(bearer: &str) -> Result<PresentedToken<'_>, FormatError> {
    let Some(rest) = bearer.strip_prefix(PREFIX) else {
        return Err(FormatError::NotAnAccessToken);
    };
    if bearer.len() != TOKEN_CHARS || !rest.bytes().all(|b| BASE62.contains(&b)) {
        return Err(FormatError::Mistyped);
    }
    let (body, checksum) = bearer.split_at(TOKEN_CHARS - CHECKSUM_CHARS);
    if base62(u128::from(crc32(body.as_bytes())), CHECKSUM_CHARS) != checksum {
        return Err(FormatError::Mistyped);
    }
    let id = unbase62(&rest[..ID_CHARS]).ok_or(FormatError::Mistyped)?;
    Ok(PresentedToken {
        id: Uuid::from_u128(id),
        secret: &rest[ID_CHARS..ID_CHARS + SECRET_CHARS],
    })
}

fn base62(mut value: u128, width: usize) -> String {
    let mut digits = vec![b'0'; width];
    for slot in digits.iter_mut().rev() {
        *slot = BASE62[(value % 62) as usize];
        value /= 62;
    }
    String::from_utf8(digits).unwrap_or_default()
}

fn unbase62(text: &str) -> Option<u128> {
    text.bytes().try_fold(0u128, |acc, byte| {
        let digit = BASE62.iter().position(|&b| b == byte)?;
        acc.checked_mul(62)?.checked_add(digit as u128)
    })
}

/// CRC-32 (IEEE 802.3, the zlib one), bit by bit: the checksum is over 60 bytes.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A big number as base-256 digits, for cutting random bytes into base62 digits without bias worth
/// speaking of (the secret's entropy is what counts, and 192 bits go into 32 digits).
struct BigNum(Vec<u8>);

impl BigNum {
    /// Divides by `base` in place; answers the remainder.
    fn take_digit(&mut self, base: u32) -> usize {
        let mut remainder = 0u32;
        for digit in &mut self.0 {
            let value = (remainder << 8) | u32::from(*digit);
            *digit = u8::try_from(value / base).unwrap_or(u8::MAX);
            remainder = value % base;
        }
        remainder as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> String {
        write(
            Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef),
            &secret_from(&[7u8; 24]),
        )
    }

    #[test]
    fn a_token_reads_back_its_id_and_secret() {
        let token = sample();
        assert_eq!(token.len(), TOKEN_CHARS);
        assert!(token.starts_with("dpt_"));
        let read = read(&token).unwrap();
        assert_eq!(
            read.id,
            Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef)
        );
        assert_eq!(read.secret, secret_from(&[7u8; 24]));
        assert_eq!(read.secret.len(), SECRET_CHARS);
    }

    #[test]
    fn every_single_character_typo_is_caught_by_the_checksum() {
        let token = sample();
        for at in PREFIX.len()..token.len() {
            let mut typo = token.clone().into_bytes();
            typo[at] = if typo[at] == b'a' { b'b' } else { b'a' };
            let typo = String::from_utf8(typo).unwrap();
            assert_eq!(read(&typo), Err(FormatError::Mistyped), "typo at {at}");
        }
        assert_eq!(read(&token[..token.len() - 1]), Err(FormatError::Mistyped));
        assert_eq!(read(&format!("{token}x")), Err(FormatError::Mistyped));
        assert_eq!(read("eyJhbGciOi.x.y"), Err(FormatError::NotAnAccessToken));
        assert_eq!(read("dpt_!!"), Err(FormatError::Mistyped));
    }

    #[test]
    fn different_random_bytes_make_different_secrets() {
        assert_ne!(secret_from(&[1u8; 24]), secret_from(&[2u8; 24]));
        assert!(secret_from(&[255u8; 24]).bytes().all(|b| BASE62.contains(&b)));
    }

    #[test]
    fn the_crc_is_the_standard_one() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn scopes_are_known_names_each_once_in_order() {
        let scopes = Scopes::parse(["apps:write", "apps:read", "apps:write"]).unwrap();
        assert_eq!(scopes.as_slice(), &[Scope::AppsRead, Scope::AppsWrite]);
        assert_eq!(scopes.to_stored(), "apps:read apps:write");
        assert!(scopes.allows(Scope::AppsRead) && !scopes.allows(Scope::AppsKeys));
        assert!(Scopes::parse(["apps:admin"]).unwrap_err().contains("apps:admin"));
        assert!(Scopes::parse(std::iter::empty()).is_err());
    }
}
