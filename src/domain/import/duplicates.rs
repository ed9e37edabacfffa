//! Keys given twice in one JSON object. A JSON parser keeps one of them (the
//! last, with serde_json) and drops the other without a word, so a file with
//! one is ambiguous: an import would lose what the developer wrote first.

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::{collections::HashSet, fmt};

/// The path of every repeated key (`tools[0].description`), in file order,
/// once per repetition. `bytes` is JSON that has already parsed; anything
/// else gives whatever was found before the error.
pub fn duplicate_keys(bytes: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let _ = Walk {
        path: String::new(),
        found: &mut found,
    }
    .deserialize(&mut deserializer);
    found
}

/// Walks one value, at `path`, without keeping it.
struct Walk<'a> {
    path: String,
    found: &'a mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let Walk { path, found } = self;
        let mut index = 0;
        while items
            .next_element_seed(Walk {
                path: format!("{path}[{index}]"),
                found: &mut *found,
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
        let Walk { path, found } = self;
        let mut seen = HashSet::new();
        while let Some(key) = entries.next_key::<String>()? {
            let at = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            if !seen.insert(key) {
                found.push(at.clone());
            }
            entries.next_value_seed(Walk {
                path: at,
                found: &mut *found,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_repeated_keys_has_none() {
        let json =
            br#"{"tools": [{"id": "a", "parameters": [{"name": "x"}]}, {"id": "b"}], "name": "n"}"#;
        assert!(duplicate_keys(json).is_empty());
    }

    #[test]
    fn each_repetition_is_found_at_its_path_in_file_order() {
        let json = br#"{
            "name": "first", "tools": [
                {"id": "a", "description": "one", "description": "two"},
                {"id": "b", "parameters": [{"name": "x", "type": "string", "type": "number", "type": "boolean"}]}
            ],
            "name": "second"
        }"#;
        assert_eq!(
            duplicate_keys(json),
            [
                "tools[0].description",
                "tools[1].parameters[0].type",
                "tools[1].parameters[0].type",
                "name",
            ]
        );
    }

    #[test]
    fn the_same_key_in_different_objects_is_not_a_repetition() {
        let json = br#"{"tools": [{"id": "a"}, {"id": "b"}], "settings": {"id": 1}}"#;
        assert!(duplicate_keys(json).is_empty());
    }

    #[test]
    fn keys_are_compared_after_unescaping() {
        // "id" written once plainly and once with an escape is the same key.
        let json = br#"{"tools": [{"id": "a", "\u0069d": "b"}]}"#;
        assert_eq!(duplicate_keys(json), ["tools[0].id"]);
    }
}
