//! Throttling of failed log-ins: a sliding window over recent failures.

/// At most `max_failures` failures within `window_ms`; the next attempt is
/// refused until enough of them have aged out of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrottlePolicy {
    pub max_failures: usize,
    pub window_ms: i64,
}

const FIFTEEN_MINUTES_MS: i64 = 15 * 60 * 1000;

/// Failed log-ins for one email address.
pub const PER_EMAIL: ThrottlePolicy = ThrottlePolicy {
    max_failures: 5,
    window_ms: FIFTEEN_MINUTES_MS,
};

/// Failed log-ins from one client address, whatever the email.
pub const PER_CLIENT: ThrottlePolicy = ThrottlePolicy {
    max_failures: 20,
    window_ms: FIFTEEN_MINUTES_MS,
};

impl ThrottlePolicy {
    /// Failures at or after this time still count at `now`.
    pub fn window_start(&self, now_ms: i64) -> i64 {
        now_ms - self.window_ms + 1
    }

    /// `None` when an attempt at `now_ms` is allowed; otherwise how many
    /// milliseconds until it will be. `failures` are the times of other
    /// failures, in any order; those before the window are ignored. One
    /// stamped after `now_ms` (a parallel attempt whose clock read came a
    /// moment later) counts as made at `now_ms`: ignoring it would let
    /// parallel attempts miss each other and slip past the limit together.
    pub fn retry_after(&self, failures: &[i64], now_ms: i64) -> Option<i64> {
        let start = self.window_start(now_ms);
        let mut recent: Vec<i64> = failures
            .iter()
            .map(|&t| t.min(now_ms))
            .filter(|&t| t >= start)
            .collect();
        if recent.len() < self.max_failures {
            return None;
        }
        recent.sort_unstable();
        // Allowed again once all but `max_failures - 1` have left the window:
        // that is when the failure at this index leaves it.
        let decisive = recent[recent.len() - self.max_failures];
        Some((decisive + self.window_ms - now_ms).max(1))
    }
}

/// "Too many attempts…" with the wait in whole minutes, rounded up.
pub fn too_many_attempts_message(retry_after_ms: i64) -> String {
    let minutes = ((retry_after_ms + 59_999) / 60_000).max(1);
    let unit = if minutes == 1 { "minute" } else { "minutes" };
    format!("Too many attempts to log in. Please wait {minutes} {unit} and try again.")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = 60_000;

    #[test]
    fn five_failures_are_allowed_and_the_sixth_attempt_is_refused() {
        let now = 100 * MIN;
        let four: Vec<i64> = (0..4).map(|i| now - i * MIN).collect();
        assert_eq!(PER_EMAIL.retry_after(&four, now), None);
        let five: Vec<i64> = (0..5).map(|i| now - i * MIN).collect();
        assert!(PER_EMAIL.retry_after(&five, now).is_some());
    }

    #[test]
    fn the_refusal_lasts_until_the_oldest_counting_failure_leaves_the_window() {
        let now = 100 * MIN;
        // Failures 10, 8, 6, 4 and 2 minutes ago: the one 10 minutes ago
        // leaves the 15-minute window in 5 minutes.
        let failures = [
            now - 10 * MIN,
            now - 8 * MIN,
            now - 6 * MIN,
            now - 4 * MIN,
            now - 2 * MIN,
        ];
        assert_eq!(PER_EMAIL.retry_after(&failures, now), Some(5 * MIN));
        assert_eq!(PER_EMAIL.retry_after(&failures, now + 5 * MIN), None);
        assert!(PER_EMAIL
            .retry_after(&failures, now + 5 * MIN - 1)
            .is_some());
    }

    #[test]
    fn with_more_failures_than_the_limit_the_wait_follows_the_right_one() {
        let now = 100 * MIN;
        // Failures 1 to 7 minutes ago: fewer than five remain only once the
        // three oldest (7, 6 and 5 minutes ago) have left the window, which
        // the one 5 minutes ago does in 10 minutes.
        let failures: Vec<i64> = (1..=7).map(|i| now - i * MIN).collect();
        assert_eq!(PER_EMAIL.retry_after(&failures, now), Some(10 * MIN));
    }

    #[test]
    fn failures_older_than_fifteen_minutes_do_not_count() {
        let now = 100 * MIN;
        let old: Vec<i64> = (0..10).map(|i| now - 15 * MIN - i).collect();
        assert_eq!(PER_EMAIL.retry_after(&old, now), None);
    }

    #[test]
    fn failures_stamped_a_moment_later_count_as_now() {
        let now = 100 * MIN;
        // Four parallel attempts read the clock a few milliseconds after
        // this one: with one earlier failure, that is five.
        let failures = [now - MIN, now + 1, now + 2, now + 2, now + 3];
        assert_eq!(PER_EMAIL.retry_after(&failures, now), Some(14 * MIN));
        assert_eq!(PER_EMAIL.retry_after(&failures[1..], now), None);
    }

    #[test]
    fn the_order_of_failures_does_not_matter() {
        let now = 100 * MIN;
        let a = [
            now - MIN,
            now - 3 * MIN,
            now - 2 * MIN,
            now - 5 * MIN,
            now - 4 * MIN,
        ];
        let mut b = a;
        b.sort_unstable();
        assert_eq!(
            PER_EMAIL.retry_after(&a, now),
            PER_EMAIL.retry_after(&b, now)
        );
    }

    #[test]
    fn one_client_may_fail_twenty_times() {
        let now = 100 * MIN;
        let nineteen: Vec<i64> = (0..19).map(|i| now - i * 1000).collect();
        assert_eq!(PER_CLIENT.retry_after(&nineteen, now), None);
        let twenty: Vec<i64> = (0..20).map(|i| now - i * 1000).collect();
        assert!(PER_CLIENT.retry_after(&twenty, now).is_some());
    }

    #[test]
    fn the_message_rounds_the_wait_up_to_whole_minutes() {
        assert!(too_many_attempts_message(1).contains("1 minute "));
        assert!(too_many_attempts_message(MIN + 1).contains("2 minutes"));
        assert!(too_many_attempts_message(15 * MIN).contains("15 minutes"));
        assert!(too_many_attempts_message(MIN).starts_with("Too many attempts"));
    }
}
