//! The expression language: the text parsed on its own (no names), then used as an
//! amount in content (with aliases and a named selector to refer to), compiled and
//! evaluated by a trigger.

use std::sync::Arc;

use tessera_host::registry::Selector;
use tessera_host::rules::expr::{parse, Expr, NameError, Names};

/// Knows no aliases and no selectors.
struct NoNames;

impl Names for NoNames {
    fn alias(&mut self, _: &str) -> Result<Option<Expr>, NameError> {
        Ok(None)
    }
    fn selector(&mut self, name: &str) -> Result<Arc<dyn Selector>, NameError> {
        Err(NameError(format!("no selector `{name}`")))
    }
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Parses `text`, then compiles and runs it as an amount.
pub fn run(text: &str) {
    let _ = parse(text, &mut NoNames);
    let content = format!(
        r#"[alias]
two = 2
twice = "source.attack * two"

[class.unit]
properties = {{ attack = 3, max_health = 5 }}
tags = ["beast"]

[[class.unit.trigger]]
when = "core:event/turn_started"
do = [{{ type = "add", key = "attack", amount = {} }}]
"#,
        toml_string(text)
    );
    crate::compile_and_run("fuzz", "content/expr.toml", &content);
}
