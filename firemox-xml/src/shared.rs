//! [`Str`]: the immutable, cheaply cloned string of element names, attributes and text.
//! Reference expansion copies the referenced elements into every card that names them;
//! with `Str` a copy shares the text instead of allocating it again.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An immutable string whose clones share one allocation (the empty string allocates
/// nothing). It reads as a `&str` (`Deref`), compares with `&str` and `String`, and
/// prints and debugs as the text.
#[derive(Clone, Default)]
pub struct Str(Option<Arc<str>>);

impl Str {
    /// The text.
    pub fn as_str(&self) -> &str {
        self.0.as_deref().unwrap_or("")
    }
}

impl Deref for Str {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Str {
    fn from(s: &str) -> Str {
        if s.is_empty() {
            Str(None)
        } else {
            Str(Some(Arc::from(s)))
        }
    }
}

impl From<String> for Str {
    fn from(s: String) -> Str {
        if s.is_empty() {
            Str(None)
        } else {
            Str(Some(Arc::from(s)))
        }
    }
}

impl From<&String> for Str {
    fn from(s: &String) -> Str {
        Str::from(s.as_str())
    }
}

impl From<Str> for String {
    fn from(s: Str) -> String {
        s.as_str().to_owned()
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Str) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || **a == **b,
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for Str {}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Str> for String {
    fn eq(&self, other: &Str) -> bool {
        self == other.as_str()
    }
}

impl PartialOrd for Str {
    fn partial_cmp(&self, other: &Str) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Str {
    fn cmp(&self, other: &Str) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Str {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::Str;

    #[test]
    fn reads_compares_and_prints_as_its_text() {
        let a = Str::from("flying");
        let b = a.clone();
        assert_eq!(a, b);
        assert_eq!(a, "flying");
        assert_eq!(a, *"flying");
        assert_eq!(a, "flying".to_owned());
        assert!(a.starts_with("fly"));
        assert_eq!(format!("{a} {a:?}"), "flying \"flying\"");
        assert_eq!(Str::default(), Str::from(""));
        assert_eq!(Str::from(String::new()).as_str(), "");
        assert_ne!(Str::from("a"), Str::from(""));
    }
}
