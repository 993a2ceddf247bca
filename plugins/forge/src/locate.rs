//! Where in a script a construct the rules lack is written, so the loader's warning about
//! it points at that line (`K:Flash` at its `K:` line, `supertype Legendary` at `Types:`,
//! `T:Mode$ Phase` at the `T:` line with that mode, ...); the `Name:` line when nothing
//! better is found.

/// The byte offset of the line of `text` that `construct` (an entry of a card's
/// `missing` list) is about.
pub fn offset_of(text: &str, construct: &str) -> usize {
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l.trim_end()))
        })
        .collect();
    let find = |pred: &dyn Fn(&str) -> bool| lines.iter().find(|(_, l)| pred(l)).map(|(o, _)| *o);
    let starts = |p: &str| find(&|l: &str| l.starts_with(p));
    let name = starts("Name:").unwrap_or(0);
    if let Some(n) = construct
        .strip_prefix("script error ")
        .and_then(|r| r.rsplit(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
    {
        return lines.get(n.saturating_sub(1)).map_or(name, |(o, _)| *o);
    }
    let head = |p: &str| construct.starts_with(p);
    let by_field = if head("supertype") || head("card type") || head("no card type") {
        starts("Types:")
    } else if head("mana symbol") || head("no mana cost") {
        starts("ManaCost:")
    } else if head("PT ") || head("a creature without PT") {
        starts("PT:")
    } else if head("AlternateMode") {
        starts("AlternateMode:")
    } else {
        None
    };
    if let Some(o) = by_field {
        return o;
    }
    // A line kind (`K:`, `A:`, `T:`, `S:`, `R:`, `SVar:`) and the construct's words: the
    // first line of that kind holding its most telling word (the one with `$`, else the
    // last), else the first line of that kind.
    let kind = ["K:", "A:", "T:", "S:", "R:", "SVar:"]
        .into_iter()
        .find(|k| construct.starts_with(k));
    let words: Vec<&str> = construct
        .split_whitespace()
        .map(|w| w.trim_end_matches('$'))
        .filter(|w| w.len() > 2)
        .collect();
    let key = words
        .iter()
        .rev()
        .find(|w| w.chars().next().is_some_and(char::is_uppercase))
        .copied();
    let of_kind = |l: &str| kind.is_none_or(|k| l.starts_with(k));
    if let Some(k) = key {
        if let Some(o) = find(&|l: &str| of_kind(l) && l.contains(k)) {
            return o;
        }
    }
    kind.and_then(starts).unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructs_point_at_their_lines() {
        let text = "Name:X\nManaCost:X R\nTypes:Legendary Creature\nPT:*/2\nK:Flash\nT:Mode$ ChangesZone | Execute$ A\nT:Mode$ Phase | Phase$ Upkeep\nSVar:A:DB$ Mill\n";
        let line = |c: &str| text[..offset_of(text, c)].matches('\n').count() + 1;
        assert_eq!(line("supertype Legendary"), 3);
        assert_eq!(line("mana symbol {X}"), 2);
        assert_eq!(line("PT */2"), 4);
        assert_eq!(line("K:Flash"), 5);
        assert_eq!(line("T:Mode$ Phase"), 7);
        assert_eq!(line("T:Mode$ ChangesZone"), 6);
        assert_eq!(line("DB$ Mill without a target"), 8);
        assert_eq!(line("something else"), 1);
        assert_eq!(line("script error F001 at line 4"), 4);
    }
}
