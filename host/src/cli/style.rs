//! Terminal output: colours (only on a terminal, and never when `NO_COLOR` is set) and
//! progress bars (`indicatif`, drawn on stderr only when it is a terminal).

use std::io::IsTerminal;

use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Whether stdout gets colours: a terminal, and `NO_COLOR` unset (<https://no-color.org>).
pub fn stdout_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// `text` in `color` when `on`.
pub fn paint(text: &str, color: AnsiColor, on: bool) -> String {
    if !on {
        return text.to_owned();
    }
    let style = Style::new().fg_color(Some(color.into())).bold();
    format!("{style}{text}{style:#}")
}

/// `tessera test`'s report with `ok` in green and `FAILED` in red on a terminal.
pub fn test_report(report: &str) -> String {
    let on = stdout_color();
    if !on {
        return report.to_owned();
    }
    report
        .lines()
        .map(|l| {
            if let Some(rest) = l.strip_prefix("ok     ") {
                format!("{}     {rest}", paint("ok", AnsiColor::Green, on))
            } else if let Some(rest) = l.strip_prefix("FAILED ") {
                format!("{} {rest}", paint("FAILED", AnsiColor::Red, on))
            } else {
                l.to_owned()
            }
        })
        .map(|l| l + "\n")
        .collect()
}

/// A progress bar over `len` items (`what`: "scenarios", "games"), hidden unless stderr
/// is a terminal, so piped output and tests see nothing of it.
pub fn progress(len: u64, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() || len < 2 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let template = format!("{{bar:30}} {{pos}}/{{len}} {what} {{wide_msg}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

/// A spinner for work of unknown length (building plugins), with `message`; hidden
/// unless stderr is a terminal.
pub fn spinner(message: String) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}
