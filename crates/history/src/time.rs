//! A record's time as text: RFC 3339 in UTC with milliseconds
//! (`2026-11-29T08:46:02.123Z`), from milliseconds since the Unix epoch.

/// `ms` (milliseconds since 1970-01-01T00:00:00Z) as RFC 3339 UTC text.
pub fn rfc3339(ms: i64) -> String {
    let seconds = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

/// The proleptic Gregorian date of day `z` since 1970-01-01: Howard
/// Hinnant's `civil_from_days` ("chrono-Compatible Low-Level Date
/// Algorithms"), exact for every `i64` day a millisecond time reaches.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_times() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_941_962_123), "2026-11-29T08:46:02.123Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999Z");
        // The extremes give text, not a panic.
        assert!(!rfc3339(i64::MAX).is_empty());
        assert!(!rfc3339(i64::MIN).is_empty());
    }
}
