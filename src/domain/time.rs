//! Timestamps (Unix milliseconds) as the console shows them.

/// `2026-12-01 14:05 UTC`: unambiguous, sortable, the same for every viewer.
pub fn format_utc(ms: i64) -> String {
    let seconds = ms.div_euclid(1000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        of_day / 3600,
        (of_day % 3600) / 60
    )
}

/// `2026-12-01T14:05:09.123Z`, as JSON documents carry time.
pub fn format_iso8601(ms: i64) -> String {
    let seconds = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        of_day / 3600,
        (of_day % 3600) / 60,
        of_day % 60
    )
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epoch_is_1970() {
        assert_eq!(format_utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(format_iso8601(0), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn known_instants_format_as_expected() {
        // 2026-12-01T02:17:35.250Z
        assert_eq!(format_utc(1_796_091_455_250), "2026-12-01 02:17 UTC");
        assert_eq!(
            format_iso8601(1_796_091_455_250),
            "2026-12-01T02:17:35.250Z"
        );
        // A leap day.
        assert_eq!(format_utc(951_782_400_000), "2000-02-29 00:00 UTC");
    }

    #[test]
    fn instants_before_the_epoch_work_too() {
        assert_eq!(format_iso8601(-1), "1969-12-31T23:59:59.999Z");
    }
}
