//! A read-only, syntax-highlighted view of a JSON text.

use leptos::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    Key,
    Str,
    Num,
    Lit,
    Plain,
}

impl Token {
    fn class(self) -> &'static str {
        match self {
            Token::Key => "j-key",
            Token::Str => "j-str",
            Token::Num => "j-num",
            Token::Lit => "j-lit",
            Token::Plain => "",
        }
    }
}

/// Splits JSON text into highlighted pieces; concatenated they give the
/// text back exactly. Punctuation and whitespace runs are merged.
pub fn tokenize(text: &str) -> Vec<(Token, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut plain_start: Option<usize> = None;
    let flush_plain =
        |start: &mut Option<usize>, end: usize, out: &mut Vec<(Token, usize, usize)>| {
            if let Some(s) = start.take() {
                if s < end {
                    out.push((Token::Plain, s, end));
                }
            }
        };
    let mut spans: Vec<(Token, usize, usize)> = Vec::new();
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                flush_plain(&mut plain_start, i, &mut spans);
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                let mut next = i;
                while next < bytes.len() && bytes[next].is_ascii_whitespace() {
                    next += 1;
                }
                let kind = if bytes.get(next) == Some(&b':') {
                    Token::Key
                } else {
                    Token::Str
                };
                spans.push((kind, start, i));
            }
            b'-' | b'0'..=b'9' => {
                flush_plain(&mut plain_start, i, &mut spans);
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                spans.push((Token::Num, start, i));
            }
            b't' | b'f' | b'n' => {
                flush_plain(&mut plain_start, i, &mut spans);
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                    i += 1;
                }
                spans.push((Token::Lit, start, i));
            }
            _ => {
                if plain_start.is_none() {
                    plain_start = Some(i);
                }
                i += 1;
            }
        }
    }
    flush_plain(&mut plain_start, bytes.len(), &mut spans);
    // Boundaries sit next to ASCII bytes, so slicing stays on char boundaries.
    spans
        .into_iter()
        .filter_map(|(kind, start, end)| text.get(start..end).map(|piece| (kind, piece)))
        .collect()
}

/// The preview: a focusable, read-only text box of highlighted JSON.
#[component]
pub fn JsonPreview(#[prop(into)] text: Signal<String>, label: &'static str) -> impl IntoView {
    view! {
        <pre
            class="json-preview"
            role="textbox"
            aria-readonly="true"
            aria-multiline="true"
            aria-label=label
            tabindex="0"
        >
            <code>
                {move || {
                    text.with(|text| {
                        tokenize(text)
                            .into_iter()
                            .map(|(kind, piece)| match kind {
                                Token::Plain => view! { {piece.to_owned()} }.into_any(),
                                kind => view! { <span class=kind.class()>{piece.to_owned()}</span> }.into_any(),
                            })
                            .collect_view()
                    })
                }}
            </code>
        </pre>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pieces_give_the_text_back() {
        let text =
            "{\n  \"name\": \"Todo \\\"App\\\"\",\n  \"n\": -1.5e3,\n  \"ok\": [true, null]\n}\n";
        let pieces = tokenize(text);
        assert_eq!(pieces.iter().map(|(_, p)| *p).collect::<String>(), text);
        assert!(pieces.contains(&(Token::Key, "\"name\"")));
        assert!(pieces.contains(&(Token::Str, "\"Todo \\\"App\\\"\"")));
        assert!(pieces.contains(&(Token::Num, "-1.5e3")));
        assert!(pieces.contains(&(Token::Lit, "true")));
        assert!(pieces.contains(&(Token::Lit, "null")));
    }

    #[test]
    fn non_ascii_text_and_broken_input_do_not_panic() {
        for text in ["{\"é\": \"ü\"}", "\"unterminated", "\"\\", "{,,]"] {
            let pieces = tokenize(text);
            assert_eq!(pieces.iter().map(|(_, p)| *p).collect::<String>(), text);
        }
    }
}
