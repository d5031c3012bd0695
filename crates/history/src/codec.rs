//! How a record's columns are stored in SQLite blobs: values as the
//! little-endian bytes of each `f64` (every bit kept, NaN payloads and
//! `-0.0` included: SQLite's REAL would turn a NaN into NULL), and a list of
//! ids as each id's byte length (`u32`, little-endian) then its bytes.
//! Decoding checks every length, so a damaged blob is an error, not a panic.

/// The bytes of `values`, eight per value, little-endian.
pub fn encode_values(values: &[f64]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(values.len() * 8);
    for value in values {
        bytes.extend_from_slice(&value.to_bits().to_le_bytes());
    }
    bytes
}

/// The values of `bytes` written by [`encode_values`]; `None` when its
/// length is not a multiple of eight.
pub fn decode_values(bytes: &[u8]) -> Option<Vec<f64>> {
    let chunks = bytes.chunks_exact(8);
    if !chunks.remainder().is_empty() {
        return None;
    }
    Some(
        chunks
            .map(|c| {
                let mut word = [0u8; 8];
                word.copy_from_slice(c);
                f64::from_bits(u64::from_le_bytes(word))
            })
            .collect(),
    )
}

/// The bytes of `ids`: each one's length as a little-endian `u32`, then its
/// bytes. An id longer than `u32::MAX` bytes is `None`.
pub fn encode_ids<'a>(ids: impl IntoIterator<Item = &'a str>) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    for id in ids {
        let len = u32::try_from(id.len()).ok()?;
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(id.as_bytes());
    }
    Some(bytes)
}

/// The ids of `bytes` written by [`encode_ids`]; `None` when a length runs
/// past the end or an id is not UTF-8.
pub fn decode_ids(mut bytes: &[u8]) -> Option<Vec<String>> {
    let mut ids = Vec::new();
    while !bytes.is_empty() {
        let (len, rest) = bytes.split_first_chunk::<4>()?;
        let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
        let (id, rest) = rest.split_at_checked(len)?;
        ids.push(std::str::from_utf8(id).ok()?.to_owned());
        bytes = rest;
    }
    Some(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_every_bit() {
        let values = [
            0.1,
            -0.0,
            f64::NAN,
            f64::from_bits(0x7ff8_dead_beef_0001),
            f64::INFINITY,
        ];
        let back = decode_values(&encode_values(&values)).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&values));
        assert!(decode_values(&[0; 7]).is_none());
    }

    #[test]
    fn ids_round_trip_and_damage_is_refused() {
        let ids = ["q1", "", "é\u{1F600}", "a b"];
        let bytes = encode_ids(ids).unwrap();
        assert_eq!(decode_ids(&bytes).unwrap(), ids);
        assert!(decode_ids(&bytes[..bytes.len() - 1]).is_none());
        assert!(decode_ids(&[255, 255, 255, 255, b'a']).is_none());
        assert!(decode_ids(&[1, 0, 0, 0, 0xff]).is_none());
        assert!(decode_ids(&[1, 0]).is_none());
    }
}
