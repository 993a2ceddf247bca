//! Macro definitions: `NAME '''body'''` found in a text, taken out of it (blanked, so line
//! numbers stay), and kept by name with where each was written.

use std::collections::BTreeMap;

/// One macro: its body and where it was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Macro {
    /// The text between the triple quotes.
    pub body: String,
    /// The file it was defined in.
    pub file: String,
    /// The 1-based line of its name.
    pub line: u32,
}

/// Macros by name.
pub type Macros = BTreeMap<String, Macro>;

/// A definition found in a text: its name, body, and byte offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub name: String,
    pub body: String,
    /// Offset of the name.
    pub start: usize,
}

/// Why a definition could not be read: the offset of its name and the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unclosed {
    pub start: usize,
    pub name: String,
}

/// Takes every definition out of `text` (its characters become spaces, its newlines
/// stay) and returns them in order, with the definitions whose `'''` never closes.
pub(crate) fn take_definitions(text: &mut String) -> (Vec<Found>, Vec<Unclosed>) {
    let mut found = Vec::new();
    let mut unclosed = Vec::new();
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(q) = text[from..].find("'''").map(|i| from + i) {
        let Some((start, name)) = name_before(text, q) else {
            from = q + 3;
            continue;
        };
        match text[q + 3..].find("'''") {
            Some(len) => {
                let end = q + 3 + len + 3;
                found.push(Found {
                    name: name.to_owned(),
                    body: text[q + 3..q + 3 + len].to_owned(),
                    start,
                });
                blank.push((start, end));
                from = end;
            }
            None => {
                unclosed.push(Unclosed {
                    start,
                    name: name.to_owned(),
                });
                blank.push((start, text.len()));
                break;
            }
        }
    }
    for (s, e) in blank {
        let spaces: String = text[s..e]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        text.replace_range(s..e, &spaces);
    }
    (found, unclosed)
}

/// The macro name written before the `'''` at `q` (only blanks between them), with its
/// offset, if the name starts its line.
fn name_before(text: &str, q: usize) -> Option<(usize, &str)> {
    let before = text[..q].trim_end();
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
        .last()
        .map(|(i, _)| i)?;
    let name = &before[start..];
    let line_start = before[..start].rfind('\n').map_or(0, |i| i + 1);
    let starts_line = before[line_start..start].trim().is_empty();
    let is_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    (starts_line && is_name).then_some((start, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_taken_out_and_lines_kept() {
        let mut text = "// x\nA_PRIORITY\n'''10'''\n\nTWO '''a\nb'''\nTech\n".to_owned();
        let lines = text.lines().count();
        let (found, unclosed) = take_definitions(&mut text);
        assert!(unclosed.is_empty());
        let names: Vec<_> = found
            .iter()
            .map(|f| (f.name.as_str(), f.body.as_str()))
            .collect();
        assert_eq!(names, [("A_PRIORITY", "10"), ("TWO", "a\nb")]);
        assert_eq!(text.lines().count(), lines);
        assert!(!text.contains("'''") && !text.contains("A_PRIORITY"));
        assert!(text.contains("Tech"));
    }

    #[test]
    fn an_unclosed_body_is_reported() {
        let mut text = "OK '''1'''\nBAD\n'''oops\nmore\n".to_owned();
        let (found, unclosed) = take_definitions(&mut text);
        assert_eq!(found.len(), 1);
        assert_eq!(unclosed.len(), 1);
        assert_eq!(unclosed[0].name, "BAD");
        assert!(text.trim().is_empty(), "{text:?}");
    }
}
