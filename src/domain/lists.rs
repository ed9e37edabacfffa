//! Comma-separated list fields ("Activation phrases", "Allowed values").
//!
//! Developers type a list into one text field. Parsing splits on `,`, trims
//! each piece, drops empty pieces and drops duplicates (first one kept);
//! rendering joins with `", "`, so a saved field shows its normalised form.

/// How two entries of a list are judged to be the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dedup {
    /// `"Add todo"` and `"add TODO"` are the same entry (activation phrases:
    /// speech recognition does not preserve case).
    CaseInsensitive,
    /// Only byte-equal entries are the same (enum values are sent verbatim).
    Exact,
}

/// Splits a comma-separated field into its normalised entries.
pub fn parse_list(input: &str, dedup: Dedup) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for piece in input.split(',') {
        let entry = piece.trim();
        if entry.is_empty() {
            continue;
        }
        let key = match dedup {
            Dedup::CaseInsensitive => entry.to_lowercase(),
            Dedup::Exact => entry.to_owned(),
        };
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        out.push(entry.to_owned());
    }
    out
}

/// Activation phrases: duplicates compared case-insensitively.
pub fn parse_phrases(input: &str) -> Vec<String> {
    parse_list(input, Dedup::CaseInsensitive)
}

/// Allowed values of a string parameter: only exact duplicates dropped.
pub fn parse_enum_values(input: &str) -> Vec<String> {
    parse_list(input, Dedup::Exact)
}

/// Renders a list back into its one-field form.
pub fn join_list<S: AsRef<str>>(entries: &[S]) -> String {
    entries
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_split_on_commas_and_trimmed() {
        assert_eq!(
            parse_phrases("  add a reminder,create a todo ,  remind me to "),
            vec!["add a reminder", "create a todo", "remind me to"]
        );
    }

    #[test]
    fn empty_entries_are_dropped() {
        assert_eq!(parse_phrases(",, a ,, ,b,"), vec!["a", "b"]);
        assert!(parse_phrases("").is_empty());
        assert!(parse_phrases(" , ,").is_empty());
    }

    #[test]
    fn phrase_duplicates_are_dropped_case_insensitively_keeping_the_first() {
        assert_eq!(
            parse_phrases("Show my todos, show MY todos, list"),
            vec!["Show my todos", "list"]
        );
    }

    #[test]
    fn enum_duplicates_are_dropped_only_when_exactly_equal() {
        assert_eq!(
            parse_enum_values("low, Low, low, high"),
            vec!["low", "Low", "high"]
        );
    }

    #[test]
    fn non_ascii_case_folding_applies_to_phrases() {
        assert_eq!(parse_phrases("Ärger, ärger"), vec!["Ärger"]);
    }

    #[test]
    fn a_joined_list_parses_back_to_itself() {
        let entries = parse_phrases("one,two ,  three");
        assert_eq!(join_list(&entries), "one, two, three");
        assert_eq!(parse_phrases(&join_list(&entries)), entries);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    // Strings heavy in the characters that matter: commas, spaces, case.
    fn messy() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            proptest::collection::vec(
                prop_oneof![
                    Just(","),
                    Just(" "),
                    Just("a"),
                    Just("A"),
                    Just("é"),
                    Just("\t"),
                    Just("b")
                ],
                0..40
            )
            .prop_map(|parts| parts.concat()),
        ]
    }

    proptest! {
        #[test]
        fn parsing_then_joining_then_parsing_gives_the_same_list(input in messy()) {
            for dedup in [Dedup::CaseInsensitive, Dedup::Exact] {
                let once = parse_list(&input, dedup);
                prop_assert_eq!(parse_list(&join_list(&once), dedup), once);
            }
        }

        #[test]
        fn entries_are_trimmed_non_empty_comma_free_and_distinct(input in messy()) {
            let phrases = parse_phrases(&input);
            for (i, phrase) in phrases.iter().enumerate() {
                prop_assert!(!phrase.is_empty());
                prop_assert_eq!(phrase.trim(), phrase.as_str());
                prop_assert!(!phrase.contains(','));
                for earlier in &phrases[..i] {
                    prop_assert_ne!(earlier.to_lowercase(), phrase.to_lowercase());
                }
            }
            let values = parse_enum_values(&input);
            for (i, value) in values.iter().enumerate() {
                prop_assert!(!values[..i].contains(value));
            }
        }
    }
}
