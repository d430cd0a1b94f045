//! Random ids and secrets, all from the system's randomness: an id another party could
//! guess would let it answer, or steer, what is not its own.

/// The system gave no randomness.
// Not `#[from]`: `getrandom::Error` is a `std::error::Error` only with getrandom's `std`
// feature, which this crate does not ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NoRandomness(getrandom::Error);

/// `N` random bytes.
pub(crate) fn random_bytes<const N: usize>() -> Result<[u8; N], NoRandomness> {
    let mut bytes = [0_u8; N];
    getrandom::fill(&mut bytes).map_err(NoRandomness)?;
    Ok(bytes)
}

/// `N` random bytes in lower-case hex: `2 * N` characters.
pub(crate) fn random_hex<const N: usize>() -> Result<String, NoRandomness> {
    Ok(random_bytes::<N>()?
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hex_id_has_two_digits_a_byte_and_differs_from_the_next() {
        let (one, two) = (
            random_hex::<16>().expect("random"),
            random_hex::<16>().expect("random"),
        );
        assert_eq!(one.len(), 32);
        assert!(
            one.bytes()
                .all(|byte| byte.is_ascii_hexdigit() && !byte.is_ascii_uppercase())
        );
        assert_ne!(one, two);
    }
}
