//! The column-per-row solution format: line r + 1 holds the column (0-based) of row r's
//! queen, nothing else. It is what `solve -o FILE` writes and `check --board FILE` reads,
//! and what `GET /v1/jobs/{id}/solution` serves: about 9 bytes a row at n = 10⁸, read and
//! written without a parser in between.

use crate::error::Error;
use crate::model::MAX_BIG_N;

/// The board as text, one column per line.
pub fn write(cols: &[u32]) -> Vec<u8> {
    // Exactly the bytes needed: one pass over the digits saves the copies of a growing
    // buffer (a gigabyte at n = 10⁸).
    let len: usize = cols
        .iter()
        .map(|&c| 2 + c.checked_ilog10().unwrap_or(0) as usize)
        .sum();
    let mut out = Vec::with_capacity(len);
    let mut digits = [0u8; 10];
    for &c in cols {
        let mut x = c;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        out.extend_from_slice(&digits[i..]);
        out.push(b'\n');
    }
    out
}

/// Reads a column-per-row board. Blank lines at the end and `#` comment lines are skipped;
/// anything else that is not a whole number below [`MAX_BIG_N`] is an error naming the line.
/// The board size is the number of rows read.
pub fn read(origin: &str, text: &[u8]) -> Result<Vec<u32>, Error> {
    let mut cols = Vec::with_capacity(text.len() / 8 + 1);
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.first() == Some(&b'#') {
            continue;
        }
        let mut value: u64 = 0;
        let trimmed = trim(line);
        if trimmed.is_empty() {
            if text[..]
                .split(|&b| b == b'\n')
                .skip(i)
                .all(|l| trim(l).is_empty())
            {
                break;
            }
            return Err(Error::input(
                origin,
                format!(
                    "line {}: empty line, expected the column of row {}",
                    i + 1,
                    cols.len()
                ),
            ));
        }
        for &b in trimmed {
            if !b.is_ascii_digit() || value > MAX_BIG_N as u64 {
                return Err(Error::input(
                    origin,
                    format!(
                        "line {}: expected one column number (0 to {}), got `{}`",
                        i + 1,
                        MAX_BIG_N - 1,
                        String::from_utf8_lossy(&trimmed[..trimmed.len().min(40)])
                    ),
                ));
            }
            value = value * 10 + u64::from(b - b'0');
        }
        if value >= MAX_BIG_N as u64 {
            return Err(Error::input_at_line(
                origin,
                i + 1,
                format!("column {value} is out of range"),
            ));
        }
        cols.push(value as u32);
    }
    if cols.is_empty() {
        return Err(Error::input(
            origin,
            "no rows: expected one column number per line",
        ));
    }
    Ok(cols)
}

fn trim(line: &[u8]) -> &[u8] {
    let start = line.iter().position(|b| !b.is_ascii_whitespace());
    let end = line.iter().rposition(|b| !b.is_ascii_whitespace());
    match (start, end) {
        (Some(s), Some(e)) => &line[s..=e],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let cols = vec![1, 3, 0, 2, 0, 4_000_000_000 % MAX_BIG_N as u32];
        assert_eq!(read("t", &write(&cols)).unwrap(), cols);
    }

    #[test]
    fn bad_line_is_named() {
        let e = read("f", b"1\n3\nx\n").unwrap_err().to_string();
        assert!(e.contains("line 3"), "{e}");
        let e = read("f", b"1\n\n3\n").unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        assert!(read("f", b"1\n3\n\n\n").is_ok());
    }
}
