//! Parameter structs: how content parameters reach a definition, and how they are
//! described to the host. Compiles for every target, so the derive is testable natively.

use std::collections::{BTreeMap, HashMap};

use crate::abi::{ParamDesc, ParamType};

/// The parameters of a definition, parsed once per use site at prepare time.
///
/// Usually derived: `#[derive(serde::Deserialize, Params)]` on a struct. The derive
/// describes each field from its type ([`ParamKind`]): numbers → `number`/`integer`,
/// `String`/`Sym` → `text`, `bool` → `bool`, `Vec<T>` → `list`, maps → `table`,
/// `Selector` → `table`, `ActionList` → `list`, `Expr` → `any`. A field is optional when it
/// is an `Option<T>` or has `#[serde(default)]` (on the field or the struct); `#[serde(skip)]`
/// fields are not parameters; `#[serde(rename = "..")]` renames; the field's doc comment is
/// its `doc`. `#[params(init = path)]` names a hook `fn(&mut Self) -> Result<(), E>`
/// (`E: Display`) run after parsing, still at prepare time — the place to prepare host
/// handles computed from other parameters.
///
/// `()` is the parameters of a definition that takes none.
pub trait Params: Sized + 'static {
    /// The parameter list of the description.
    fn describe() -> Vec<ParamDesc>;

    /// Parses the use site's parameters (a JSON object) and runs the `init` hook.
    /// Host handles ([`Selector`](crate::Selector), ...) are prepared here.
    fn from_json(json: &[u8]) -> Result<Self, String>;
}

impl Params for () {
    fn describe() -> Vec<ParamDesc> {
        Vec::new()
    }

    fn from_json(_json: &[u8]) -> Result<(), String> {
        Ok(())
    }
}

/// How a parameter field's type is described.
pub trait ParamKind {
    /// The description's `type`.
    const TYPE: ParamType;
    /// Whether the type itself makes the field optional (`Option<T>`).
    const OPTIONAL: bool = false;
}

macro_rules! kinds {
    ($ty:expr => $($t:ty),*) => {$(
        impl ParamKind for $t {
            const TYPE: ParamType = $ty;
        }
    )*};
}

kinds!(ParamType::Integer => i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);
kinds!(ParamType::Number => f32, f64);
kinds!(ParamType::Text => String, Box<str>, std::sync::Arc<str>);
kinds!(ParamType::Bool => bool);

impl<T> ParamKind for Vec<T> {
    const TYPE: ParamType = ParamType::List;
}

impl<K, V, S> ParamKind for HashMap<K, V, S> {
    const TYPE: ParamType = ParamType::Table;
}

impl<K, V> ParamKind for BTreeMap<K, V> {
    const TYPE: ParamType = ParamType::Table;
}

impl<T: ParamKind> ParamKind for Option<T> {
    const TYPE: ParamType = T::TYPE;
    const OPTIONAL: bool = true;
}

impl<T: ParamKind> ParamKind for Box<T> {
    const TYPE: ParamType = T::TYPE;
    const OPTIONAL: bool = T::OPTIONAL;
}

#[cfg(any(target_arch = "wasm32", feature = "native"))]
mod guest_kinds {
    use super::*;
    use crate::guest::{ActionList, Expr, Selector, Sym};

    kinds!(ParamType::Text => Sym);
    kinds!(ParamType::Table => Selector);
    kinds!(ParamType::List => ActionList);
    kinds!(ParamType::Any => Expr, serde_json::Value);
}

/// One field's description (used by the derive).
#[doc(hidden)]
pub fn field<T: ParamKind + ?Sized>(name: &str, has_default: bool, doc: &str) -> ParamDesc {
    ParamDesc {
        name: name.to_owned(),
        ty: T::TYPE,
        required: !(T::OPTIONAL || has_default),
        doc: doc.to_owned(),
    }
}

/// Parses parameters from JSON (used by the derive).
#[doc(hidden)]
pub fn parse<T: serde::de::DeserializeOwned>(json: &[u8]) -> Result<T, String> {
    serde_json::from_slice(json).map_err(|e| e.to_string())
}

/// Runs an `init` hook, turning its error into text (used by the derive).
#[doc(hidden)]
pub fn init<T, E: core::fmt::Display>(
    value: &mut T,
    hook: impl FnOnce(&mut T) -> Result<(), E>,
) -> Result<(), String> {
    hook(value).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use crate::abi::{ParamDesc, ParamType};
    use crate::Params;

    fn schema<P: Params>() -> Vec<(String, ParamType, bool, String)> {
        P::describe()
            .into_iter()
            .map(
                |ParamDesc {
                     name,
                     ty,
                     required,
                     doc,
                 }| (name, ty, required, doc),
            )
            .collect()
    }

    /// A struct like plugins write.
    #[derive(Deserialize, Params)]
    #[params(init = Example::check)]
    struct Example {
        /// How much.
        ///
        /// Second paragraph,
        /// wrapped.
        amount: i64,
        /// A factor.
        factor: Option<f64>,
        #[serde(rename = "label")]
        name: String,
        #[serde(default)]
        flags: Vec<bool>,
        #[serde(skip)]
        cache: u32,
    }

    impl Example {
        fn check(&mut self) -> Result<(), String> {
            if self.amount < 0 {
                return Err("negative".into());
            }
            self.cache = 7;
            Ok(())
        }
    }

    #[derive(Default, Deserialize, Params)]
    #[serde(default, rename_all = "kebab-case")]
    struct Kebab {
        max_hits: u8,
        on_board: bool,
    }

    #[derive(Deserialize, Params)]
    struct Unit;

    #[test]
    fn derive_describes_fields() {
        assert_eq!(
            schema::<Example>(),
            vec![
                (
                    "amount".into(),
                    ParamType::Integer,
                    true,
                    "How much.\n\nSecond paragraph, wrapped.".into()
                ),
                (
                    "factor".into(),
                    ParamType::Number,
                    false,
                    "A factor.".into()
                ),
                ("label".into(), ParamType::Text, true, String::new()),
                ("flags".into(), ParamType::List, false, String::new()),
            ]
        );
        assert_eq!(
            schema::<Kebab>(),
            vec![
                ("max-hits".into(), ParamType::Integer, false, String::new()),
                ("on-board".into(), ParamType::Bool, false, String::new()),
            ]
        );
        assert!(schema::<Unit>().is_empty());
        assert!(schema::<()>().is_empty());
    }

    #[test]
    fn derive_parses_and_runs_init() {
        let e = Example::from_json(br#"{"amount": 3, "label": "x"}"#).unwrap();
        assert_eq!(
            (e.amount, e.factor, e.name.as_str(), e.flags.len(), e.cache),
            (3, None, "x", 0, 7)
        );
        assert_eq!(
            Example::from_json(br#"{"amount": -1, "label": "x"}"#)
                .err()
                .unwrap(),
            "negative"
        );
        assert!(Example::from_json(br#"{"amount": "no"}"#)
            .err()
            .unwrap()
            .contains("invalid type"));
        assert!(Unit::from_json(b"{}").is_ok());
        let k = Kebab::from_json(br#"{"max-hits": 2}"#).unwrap();
        assert_eq!((k.max_hits, k.on_board), (2, false));
    }
}
