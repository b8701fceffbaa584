//! The one spelling of a timestamp on the wire: ISO 8601 in UTC with milliseconds,
//! `YYYY-MM-DDTHH:MM:SS.mmmZ` (the maintenance mirror's `changedAt`, and every event's `at`).
//!
//! Pure formatting: the caller hands in the time; nothing here reads a clock.

/// Formats milliseconds since the Unix epoch (negative values are before 1970).
#[must_use]
pub fn iso8601_utc_millis(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Gregorian date of a day count since 1970-01-01 (proleptic calendar, era arithmetic).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates_are_spelled_exactly() {
        assert_eq!(iso8601_utc_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            iso8601_utc_millis(1_795_354_239_123),
            "2026-11-22T13:30:39.123Z"
        );
        assert_eq!(
            iso8601_utc_millis(951_782_400_000),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(iso8601_utc_millis(-1), "1969-12-31T23:59:59.999Z");
    }
}
