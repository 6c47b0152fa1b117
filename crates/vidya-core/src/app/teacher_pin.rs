//! The teacher PIN: lets the teacher act as the teacher from another device in classroom mode
//! (`POST /api/teacher`), set on the Settings screen of the laptop itself.
//!
//! Stored in the library folder as `teacher-pin` (one line,
//! `pbkdf2-sha256$ROUNDS$SALT_HEX$HASH_HEX`): PBKDF2-HMAC-SHA-256 (RFC 8018) with a 16-byte
//! random salt and [`PBKDF2_ROUNDS`] rounds, never the PIN itself.

use crate::error::{Result, VidyaError};
use std::path::{Path, PathBuf};

/// PBKDF2 rounds: OWASP's 2023 figure for PBKDF2-HMAC-SHA-256 is 600,000; 200,000 keeps one
/// check near 0.1 s on an old laptop, and wrong PINs are locked out per device anyway.
pub const PBKDF2_ROUNDS: u32 = 200_000;
/// Fewest digits in a PIN.
pub const MIN_DIGITS: usize = 4;
/// Most digits in a PIN.
pub const MAX_DIGITS: usize = 12;

fn path(dir: &Path) -> PathBuf {
    dir.join("teacher-pin")
}

fn derive(pin: &str, salt: &[u8], rounds: u32) -> [u8; 32] {
    pbkdf2::pbkdf2_hmac_array::<sha2::Sha256, 32>(pin.as_bytes(), salt, rounds)
}

/// Sets (`Some`) or removes (`None`) the PIN of the library in `dir`. Errors:
/// [`VidyaError::BadOption`] for a PIN that is not 4–12 digits; the file cannot be written.
pub fn set(dir: &Path, pin: Option<&str>) -> Result<()> {
    let Some(pin) = pin else {
        return match std::fs::remove_file(path(dir)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(VidyaError::io(path(dir), e)),
            _ => Ok(()),
        };
    };
    let pin = pin.trim();
    if !(MIN_DIGITS..=MAX_DIGITS).contains(&pin.chars().count())
        || !pin.chars().all(|c| c.is_ascii_digit())
    {
        return Err(VidyaError::BadOption(format!(
            "the teacher PIN must be {MIN_DIGITS} to {MAX_DIGITS} digits"
        )));
    }
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt)
        .map_err(|e| VidyaError::Internal(format!("no random numbers for the PIN's salt: {e}")))?;
    let line = format!(
        "pbkdf2-sha256${PBKDF2_ROUNDS}${}${}\n",
        hex::encode(salt),
        hex::encode(derive(pin, &salt, PBKDF2_ROUNDS))
    );
    std::fs::write(path(dir), line).map_err(|e| VidyaError::io(path(dir), e))
}

/// True when the library in `dir` has a teacher PIN.
pub fn is_set(dir: &Path) -> bool {
    path(dir).is_file()
}

/// True when `pin` is the PIN of the library in `dir` (false when none is set or the file is
/// damaged).
pub fn check(dir: &Path, pin: &str) -> bool {
    let Ok(line) = std::fs::read_to_string(path(dir)) else {
        return false;
    };
    let parts: Vec<&str> = line.trim().split('$').collect();
    let [kind, rounds, salt, hash] = parts[..] else {
        return false;
    };
    let (Ok(rounds), Ok(salt), Ok(hash)) =
        (rounds.parse::<u32>(), hex::decode(salt), hex::decode(hash))
    else {
        return false;
    };
    kind == "pbkdf2-sha256" && derive(pin.trim(), &salt, rounds)[..] == hash[..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_is_checked_against_its_salted_hash_and_can_be_removed() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_set(dir.path()) && !check(dir.path(), "1234"));
        set(dir.path(), Some("2468")).unwrap();
        assert!(is_set(dir.path()));
        assert!(check(dir.path(), "2468") && !check(dir.path(), "2469"));
        let stored = std::fs::read_to_string(dir.path().join("teacher-pin")).unwrap();
        assert!(!stored.contains("2468"), "never the PIN itself");
        for bad in ["12", "12a4", "1234567890123"] {
            assert!(
                matches!(set(dir.path(), Some(bad)), Err(VidyaError::BadOption(_))),
                "{bad}"
            );
        }
        set(dir.path(), None).unwrap();
        assert!(!is_set(dir.path()) && !check(dir.path(), "2468"));
    }
}
