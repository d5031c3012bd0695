//! A [`State`] as bytes and back, to merge states built on other machines
//! (a Spark job's partitions) with the bits of one pass.
//!
//! The wire is rankeval-core's state wire machinery
//! ([`rankeval_core::corpus::WireReader`], [`StateWireError`], the tag
//! [`OPE_ESTIMATOR`] among [`rankeval_core::corpus::STATE_TAGS`]), the
//! exact sums written by `FullSum::write`.
//!
//! ## Wire format (version 1)
//!
//! Every number little-endian; a float as its IEEE bits (`u64`); a sum as
//! `rankeval_core::exact_sum::FullSum::write` writes it.
//!
//! ```text
//! tag:      u8 = 3 (an off-policy estimator state)
//! version:  u8 = 1
//! name:     length: u32, then its UTF-8 bytes
//! form:     u8   0 Mean | 1 Ratio | 2 MeanPlusRatio
//! sums:     3 sums, Σ x_j
//! products: 6 sums, Σ x_j x_k for (0,0) (0,1) (0,2) (1,1) (1,2) (2,2)
//! n:        u64, impressions
//! Σ w, Σ w²: 2 sums
//! max:      f64, the largest |w|
//! clipped:  u64
//! Σ support, Σ support²: 2 sums
//! ```
//!
//! [`decode`] refuses anything else with a [`StateWireError`], never a
//! panic: bytes cut short or left over, another kind of state, another
//! version, a form it does not know, a name that is not UTF-8, a sum to
//! which an infinity or NaN was added, a largest weight that is NaN,
//! infinite or negative, more clipped weights than impressions.

use rankeval_core::corpus::{OPE_ESTIMATOR, StateWireError, WireReader, tag_kind};
use rankeval_core::exact_sum::FullSum;

use crate::state::{COLUMNS, Form, PRODUCTS, State, WeightSums};

/// The version of the wire format [`encode`] writes and [`decode`] reads.
pub const WIRE_VERSION: u8 = 1;

/// The kind's name in errors.
const KIND: &str = "an off-policy estimator state";

/// The wire byte of a form.
fn form_byte(form: Form) -> u8 {
    match form {
        Form::Mean => 0,
        Form::Ratio => 1,
        Form::MeanPlusRatio => 2,
    }
}

/// `state` as bytes ([module docs](self)): the same state gives the same
/// bytes, and the bytes of a decoded state are the bytes it was decoded
/// from.
pub fn encode(state: &State) -> Vec<u8> {
    let (sums, products, weights) = state.parts();
    let name = state.name().as_bytes();
    let mut out = Vec::with_capacity(64 + name.len() + 17 * 8 * 4);
    out.push(OPE_ESTIMATOR);
    out.push(WIRE_VERSION);
    // A name longer than u32::MAX bytes cannot be built by any estimator
    // of this crate; its length is saturated, which decode then refuses.
    out.extend_from_slice(&u32::try_from(name.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(name);
    out.push(form_byte(state.form()));
    for sum in sums.iter().chain(products) {
        write_canonical(sum, &mut out);
    }
    out.extend_from_slice(&weights.n.to_le_bytes());
    write_canonical(&weights.sum, &mut out);
    write_canonical(&weights.sum_squares, &mut out);
    out.extend_from_slice(&weights.max.to_bits().to_le_bytes());
    out.extend_from_slice(&weights.clipped.to_le_bytes());
    write_canonical(&weights.support, &mut out);
    write_canonical(&weights.support_squares, &mut out);
    out
}

/// Writes `sum` as the sum [`decode`] would read back writes itself: an
/// exact sum's partials as added in one order are one of several
/// representations of its value, and reading re-adds them (the value is
/// the same, the partials may be fewer), so the sum is written, read and
/// written again until its bytes no longer change (once or twice). Then
/// `encode(decode(bytes)) == bytes`: a state crosses any number of
/// machines unchanged, to the bit.
fn write_canonical(sum: &FullSum, out: &mut Vec<u8>) {
    let mut bytes = Vec::new();
    sum.write(&mut bytes);
    for _ in 0..8 {
        let Some((read, _)) = FullSum::read(&bytes) else {
            break;
        };
        let mut again = Vec::with_capacity(bytes.len());
        read.write(&mut again);
        if again == bytes {
            break;
        }
        bytes = again;
    }
    out.extend_from_slice(&bytes);
}

/// A state from [`encode`]'s bytes; an error for anything else (see the
/// [module docs](self)).
pub fn decode(bytes: &[u8]) -> Result<State, StateWireError> {
    let malformed = |problem: String| StateWireError::Malformed {
        kind: KIND,
        problem,
    };
    let mut r = WireReader::new(bytes);
    let tag = r.u8()?;
    if tag != OPE_ESTIMATOR {
        return Err(match tag_kind(tag) {
            Some(found) => StateWireError::WrongKind {
                expected: KIND,
                found,
            },
            None => StateWireError::UnknownKind(tag),
        });
    }
    let version = r.u8()?;
    if version != WIRE_VERSION {
        return Err(StateWireError::Version {
            kind: KIND,
            found: version,
            reads: WIRE_VERSION,
        });
    }
    let len = r.u32()?;
    let name =
        r.take(usize::try_from(len).map_err(|_| malformed(format!("a name of {len} bytes")))?)?;
    let name = std::str::from_utf8(name)
        .map_err(|e| malformed(format!("its estimator's name is not UTF-8 ({e})")))?
        .to_owned();
    let form = match r.u8()? {
        0 => Form::Mean,
        1 => Form::Ratio,
        2 => Form::MeanPlusRatio,
        other => return Err(malformed(format!("unknown form {other}"))),
    };
    let sum = |r: &mut WireReader<'_>, what: &str| -> Result<FullSum, StateWireError> {
        let at = r.position();
        let s = r.full_sum(KIND)?;
        if s.is_finite_sum() {
            Ok(s)
        } else {
            Err(malformed(format!(
                "the sum {what} at byte {at} holds an infinity or NaN"
            )))
        }
    };
    let mut sums: [FullSum; COLUMNS] = Default::default();
    for (j, slot) in sums.iter_mut().enumerate() {
        *slot = sum(&mut r, &format!("of column {j}"))?;
    }
    let mut products: [FullSum; PRODUCTS] = Default::default();
    for (j, slot) in products.iter_mut().enumerate() {
        *slot = sum(&mut r, &format!("of products {j}"))?;
    }
    let n = r.u64()?;
    let weight_sum = sum(&mut r, "of the weights")?;
    let sum_squares = sum(&mut r, "of the squared weights")?;
    let at = r.position();
    let max = r.f64()?;
    if !(max.is_finite() && max >= 0.0) {
        return Err(malformed(format!(
            "the largest weight at byte {at} is {max}, not a finite number at least 0"
        )));
    }
    let clipped = r.u64()?;
    if clipped > n {
        return Err(malformed(format!(
            "{clipped} clipped weights among {n} impressions"
        )));
    }
    let support = sum(&mut r, "of the supported mass")?;
    let support_squares = sum(&mut r, "of the squared supported mass")?;
    r.finish()?;
    let weights = WeightSums {
        n,
        sum: weight_sum,
        sum_squares,
        max,
        clipped,
        support,
        support_squares,
    };
    Ok(State::from_parts(name, form, sums, products, weights))
}

impl State {
    /// The state as bytes: [`encode`].
    pub fn to_bytes(&self) -> Vec<u8> {
        encode(self)
    }

    /// A state from [`to_bytes`](Self::to_bytes)'s bytes: [`decode`].
    pub fn from_bytes(bytes: &[u8]) -> Result<State, StateWireError> {
        decode(bytes)
    }
}
