//! A line diff, for comparing a revision with the current state.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LineChange {
    Same,
    Removed,
    Added,
}

/// Beyond this many cells the alignment table is not built.
const MAX_TABLE: usize = 4_000_000;

/// The lines of `old` and `new` in order, each marked as kept, removed or
/// added (a longest-common-subsequence diff).
pub fn diff_lines<'a>(old: &'a str, new: &'a str) -> Vec<(LineChange, &'a str)> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Skip the common head and tail: JSON snapshots mostly differ in a few places.
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let mut out: Vec<(LineChange, &str)> =
        a[..head].iter().map(|l| (LineChange::Same, *l)).collect();
    if a_mid.len().saturating_mul(b_mid.len()) > MAX_TABLE {
        // Too different to align cheaply: old middle out, new middle in.
        out.extend(a_mid.iter().map(|l| (LineChange::Removed, *l)));
        out.extend(b_mid.iter().map(|l| (LineChange::Added, *l)));
        out.extend(a[a.len() - tail..].iter().map(|l| (LineChange::Same, *l)));
        return out;
    }

    // lcs[i][j]: length of the LCS of a_mid[i..] and b_mid[j..].
    let mut lcs = vec![vec![0_u32; b_mid.len() + 1]; a_mid.len() + 1];
    for i in (0..a_mid.len()).rev() {
        for j in (0..b_mid.len()).rev() {
            lcs[i][j] = if a_mid[i] == b_mid[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < a_mid.len() || j < b_mid.len() {
        if i < a_mid.len() && j < b_mid.len() && a_mid[i] == b_mid[j] {
            out.push((LineChange::Same, a_mid[i]));
            i += 1;
            j += 1;
        } else if i < a_mid.len() && (j == b_mid.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // On a tie, what went comes before what came.
            out.push((LineChange::Removed, a_mid[i]));
            i += 1;
        } else {
            out.push((LineChange::Added, b_mid[j]));
            j += 1;
        }
    }
    out.extend(a[a.len() - tail..].iter().map(|l| (LineChange::Same, *l)));
    out
}

/// Whether two texts differ at all, line by line.
pub fn has_changes(diff: &[(LineChange, &str)]) -> bool {
    diff.iter().any(|(change, _)| *change != LineChange::Same)
}

#[cfg(test)]
mod tests {
    use super::*;
    use LineChange::*;

    #[test]
    fn identical_texts_have_no_changes() {
        let d = diff_lines("a\nb\n", "a\nb\n");
        assert_eq!(d, vec![(Same, "a"), (Same, "b")]);
        assert!(!has_changes(&d));
    }

    #[test]
    fn a_changed_line_is_a_removal_and_an_addition() {
        let d = diff_lines(
            "{\n  \"name\": \"Old\",\n  \"v\": 1\n}",
            "{\n  \"name\": \"New\",\n  \"v\": 1\n}",
        );
        assert_eq!(
            d,
            vec![
                (Same, "{"),
                (Removed, "  \"name\": \"Old\","),
                (Added, "  \"name\": \"New\","),
                (Same, "  \"v\": 1"),
                (Same, "}")
            ]
        );
    }

    #[test]
    fn insertions_and_deletions_keep_the_common_lines() {
        let d = diff_lines("a\nb\nc\nd", "a\nc\nd\ne");
        assert_eq!(
            d,
            vec![
                (Same, "a"),
                (Removed, "b"),
                (Same, "c"),
                (Same, "d"),
                (Added, "e")
            ]
        );
        let both_sides: Vec<&str> = d
            .iter()
            .filter(|(c, _)| *c != Added)
            .map(|(_, l)| *l)
            .collect();
        assert_eq!(
            both_sides,
            vec!["a", "b", "c", "d"],
            "the old text is recoverable"
        );
    }

    #[test]
    fn very_different_long_texts_fall_back_to_out_and_in() {
        let old: String = (0..3000).map(|i| format!("old {i}\n")).collect();
        let new: String = (0..3000).map(|i| format!("new {i}\n")).collect();
        let d = diff_lines(&old, &new);
        assert_eq!(d.len(), 6000);
        assert!(d[..3000].iter().all(|(c, _)| *c == Removed));
    }

    #[test]
    fn empty_texts_work() {
        assert_eq!(diff_lines("", "x"), vec![(Added, "x")]);
        assert_eq!(diff_lines("x", ""), vec![(Removed, "x")]);
        assert!(diff_lines("", "").is_empty());
    }
}
