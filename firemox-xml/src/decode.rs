//! Bytes → text, by the file's XML declaration: `ISO-8859-1` (Latin-1) and `US-ASCII` map
//! each byte to the character of the same number, `ISO-8859-15` (Latin-9) too except its
//! eight changed code points, `UTF-8` (or no declaration) is UTF-8. A file with no
//! declaration whose bytes are not UTF-8 is read as Latin-1 and says so (a warning): Magic
//! Project's older card files were written that way.

/// How a file's bytes were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (declared, or no declaration and valid UTF-8).
    Utf8,
    /// ISO-8859-1 or US-ASCII, as declared.
    Latin1,
    /// ISO-8859-15, as declared.
    Latin9,
    /// No declaration and not UTF-8: read as Latin-1.
    Latin1Guessed,
}

/// The decoded text and how it was read.
#[derive(Debug)]
pub struct Decoded {
    /// The text.
    pub text: String,
    /// The encoding used.
    pub encoding: Encoding,
}

/// The declared encoding, from `<?xml ... encoding="..."?>` at the start (lowercased).
pub fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = bytes.get(..bytes.len().min(200))?;
    let head: String = head.iter().map(|&b| char::from(b)).collect();
    let decl = head.strip_prefix('\u{feff}').unwrap_or(&head);
    let decl = &decl[..decl.find("?>")?];
    let at = decl.find("encoding")?;
    let rest = decl[at + "encoding".len()..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &rest[1..];
    Some(value[..value.find(quote)?].to_ascii_lowercase())
}

/// Decodes a file's bytes by its declaration. `Err` names an encoding this reader does not
/// know.
pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    let latin1 = |bytes: &[u8]| bytes.iter().map(|&b| char::from(b)).collect::<String>();
    match declared_encoding(bytes).as_deref() {
        Some("iso-8859-1" | "latin1" | "latin-1" | "us-ascii" | "ascii" | "windows-1252") => Ok(Decoded {
            text: latin1(bytes),
            encoding: Encoding::Latin1,
        }),
        Some("iso-8859-15" | "latin-9") => Ok(Decoded {
            text: bytes.iter().map(|&b| latin9(b)).collect(),
            encoding: Encoding::Latin9,
        }),
        Some("utf-8" | "utf8") | None => match std::str::from_utf8(bytes) {
            Ok(t) => Ok(Decoded {
                text: t.strip_prefix('\u{feff}').unwrap_or(t).to_owned(),
                encoding: Encoding::Utf8,
            }),
            Err(e) if declared_encoding(bytes).is_none() => {
                let _ = e;
                Ok(Decoded {
                    text: latin1(bytes),
                    encoding: Encoding::Latin1Guessed,
                })
            }
            Err(e) => Err(format!(
                "the file declares UTF-8 but byte {} is not UTF-8; save it as UTF-8 or declare encoding=\"ISO-8859-1\"",
                e.valid_up_to()
            )),
        },
        Some(other) => Err(format!(
            "unknown encoding `{other}`; declare UTF-8, ISO-8859-1, ISO-8859-15 or US-ASCII"
        )),
    }
}

/// One ISO-8859-15 byte as a character (eight code points differ from Latin-1).
fn latin9(b: u8) -> char {
    match b {
        0xA4 => '€',
        0xA6 => 'Š',
        0xA8 => 'š',
        0xB4 => 'Ž',
        0xB8 => 'ž',
        0xBC => 'Œ',
        0xBD => 'œ',
        0xBE => 'Ÿ',
        _ => char::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_latin1_is_read_byte_for_byte() {
        let d = decode(b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>\xe9</a>").unwrap();
        assert_eq!(d.encoding, Encoding::Latin1);
        assert!(d.text.contains("<a>é</a>"));
        // Valid UTF-8 bytes in a Latin-1 file are still Latin-1 characters.
        let d = decode(b"<?xml version='1.0' encoding='iso-8859-1'?><a>\xc3\xa9</a>").unwrap();
        assert!(d.text.contains("<a>Ã©</a>"), "{}", d.text);
    }

    #[test]
    fn latin9_euro_and_undeclared_fallback() {
        let d = decode(b"<?xml version=\"1.0\" encoding=\"ISO-8859-15\"?><a>\xa4</a>").unwrap();
        assert!(d.text.contains('€'));
        let d = decode(b"<?xml version=\"1.0\"?><a>caf\xe9</a>").unwrap();
        assert_eq!(d.encoding, Encoding::Latin1Guessed);
        assert!(d.text.contains("café"));
        let d = decode("<a>café</a>".as_bytes()).unwrap();
        assert_eq!(d.encoding, Encoding::Utf8);
    }

    #[test]
    fn bad_declarations_are_errors() {
        assert!(
            decode(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>\xe9</a>")
                .unwrap_err()
                .contains("byte")
        );
        assert!(decode(b"<?xml version=\"1.0\" encoding=\"EBCDIC\"?><a/>")
            .unwrap_err()
            .contains("ebcdic"));
    }
}
