//! Progress bars on stderr, shown only when stderr is a terminal (results go to stdout).

use std::io::IsTerminal;

/// A bar reading `{what} [====>   ] done/total {units}, elapsed (eta …)`, or `None` when
/// stderr is not a terminal.
pub fn bar(what: &str, units: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let style = indicatif::ProgressStyle::with_template(&format!(
        "{{msg}} [{{bar:40}}] {{pos}}/{{len}} {units}, {{elapsed}} (eta {{eta}})"
    ))
    .expect("valid template")
    .progress_chars("=> ");
    // Built without drawing: the first frame comes with the first progress report, which
    // knows the length (a frame at 0/0 would show a full bar).
    Some(
        indicatif::ProgressBar::new(0)
            .with_style(style)
            .with_message(what.to_string()),
    )
}

/// A spinner reading `{what}, {elapsed}` for work whose size is unknown (a search), ticking
/// by itself, or `None` when stderr is not a terminal.
pub fn spinner(what: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let style = indicatif::ProgressStyle::with_template("{spinner} {msg}, {elapsed}")
        .expect("valid template");
    let bar = indicatif::ProgressBar::new_spinner()
        .with_style(style)
        .with_message(what.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    Some(bar)
}
