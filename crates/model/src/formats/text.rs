//! What every text format shares: the byte-order mark a reader skips and the message for an
//! input with nothing in it. Below the readers (`grid.rs`, `json.rs`) and `mod.rs`, which
//! re-exports both.

/// What an input without any grid, JSON or option line is told.
pub const EMPTY_INPUT: &str =
    "empty input: expected a text grid (n lines of n cells) or a JSON object like {\"n\": 8}";

/// `text` without a leading UTF-8 byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{FEFF}').unwrap_or(text)
}
