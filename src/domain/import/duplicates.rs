//! Keys given twice in one JSON object. A JSON parser keeps one of them (the
//! last, with serde_json) and drops the other without a word, so a file with
//! one is ambiguous: an import would lose what the developer wrote first.

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::{collections::HashSet, fmt};

/// At most this many repetitions are reported, each by its path.
pub const REPORTED: usize = 20;
/// A key longer than this is shortened in a reported path.
const KEY_SHOWN: usize = 40;

/// What a walk found: the paths of the first [`REPORTED`] repeated keys
/// (`tools[0].description`), in file order, and how many there are in all.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Repeated {
    pub paths: Vec<String>,
    pub count: usize,
}

/// The keys given again in the same object. `bytes` is JSON that has
/// already parsed; anything else gives whatever was found before the error.
/// The walk keeps one path, extended and cut back as it goes, so its work
/// stays in proportion to the file whatever the nesting or key lengths.
pub fn duplicate_keys(bytes: &[u8]) -> Repeated {
    let mut found = Repeated::default();
    let mut path = String::new();
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let _ = Walk {
        path: &mut path,
        found: &mut found,
    }
    .deserialize(&mut deserializer);
    found
}

/// Walks one value, at `path`, without keeping it.
struct Walk<'a> {
    path: &'a mut String,
    found: &'a mut Repeated,
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
        let base = path.len();
        let mut index = 0_usize;
        loop {
            path.truncate(base);
            path.push('[');
            path.push_str(&index.to_string());
            path.push(']');
            let item = items.next_element_seed(Walk {
                path: &mut *path,
                found: &mut *found,
            })?;
            if item.is_none() {
                break;
            }
            index += 1;
        }
        path.truncate(base);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
        let Walk { path, found } = self;
        let base = path.len();
        let mut seen = HashSet::new();
        while let Some(key) = entries.next_key::<String>()? {
            path.truncate(base);
            if base > 0 {
                path.push('.');
            }
            match key.char_indices().nth(KEY_SHOWN) {
                Some((cut, _)) => {
                    path.push_str(&key[..cut]);
                    path.push('…');
                }
                None => path.push_str(&key),
            }
            if !seen.insert(key) {
                found.count += 1;
                if found.paths.len() < REPORTED {
                    found.paths.push(path.clone());
                }
            }
            entries.next_value_seed(Walk {
                path: &mut *path,
                found: &mut *found,
            })?;
        }
        path.truncate(base);
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
        assert_eq!(duplicate_keys(json), Repeated::default());
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
        let found = duplicate_keys(json);
        assert_eq!(
            found.paths,
            [
                "tools[0].description",
                "tools[1].parameters[0].type",
                "tools[1].parameters[0].type",
                "name",
            ]
        );
        assert_eq!(found.count, 4);
    }

    #[test]
    fn the_same_key_in_different_objects_is_not_a_repetition() {
        let json = br#"{"tools": [{"id": "a"}, {"id": "b"}], "settings": {"id": 1}}"#;
        assert_eq!(duplicate_keys(json), Repeated::default());
    }

    #[test]
    fn keys_are_compared_after_unescaping() {
        // "id" written once plainly and once with an escape is the same key.
        let json = br#"{"tools": [{"id": "a", "\u0069d": "b"}]}"#;
        assert_eq!(duplicate_keys(json).paths, ["tools[0].id"]);
    }

    #[test]
    fn many_repetitions_under_a_long_key_stay_cheap_and_few_are_listed() {
        // Near the size limit: a 500 KB key over 50,000 repeated keys.
        let mut json = format!("{{\"{}\": {{", "k".repeat(500_000));
        json.push_str(&vec!["\"a\":0"; 50_000].join(","));
        json.push_str("}}");
        let found = duplicate_keys(json.as_bytes());
        assert_eq!(found.count, 49_999);
        assert_eq!(found.paths.len(), REPORTED);
        assert_eq!(found.paths[0], format!("{}….a", "k".repeat(40)));
    }
}
