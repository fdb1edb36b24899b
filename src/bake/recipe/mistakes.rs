//! Mistakes YAML lets through silently, caught before they bake something
//! other than what was meant, and unknown keys answered with the key that
//! was probably meant.

/// An unquoted colour: YAML reads `background: #123456` as the key with
/// no value and a comment, so the bake would quietly use the default. A
/// `#` right after `key:` (or `- `), followed by 3, 4, 6 or 8 hex digits
/// and then nothing but the end of the line, a `,` or a `}`, is taken for
/// such a colour: a comment written there would hardly be a bare hex
/// number. Gives the first one's line, column and message.
pub(super) fn unquoted_colour_in(text: &str) -> Option<(u64, u64, String)> {
    for (n, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(at) = line[from..].find('#').map(|i| i + from) {
            if let Some((key, hex)) = unquoted_colour(line, at) {
                let shown = if key.is_empty() {
                    format!("- \"#{hex}\"")
                } else {
                    format!("{key}: \"#{hex}\"")
                };
                return Some((
                    n as u64 + 1,
                    line[..at].chars().count() as u64 + 1,
                    format!(
                        "`#{hex}` is a YAML comment here, so {} no value; quote the colour: {shown}",
                        if key.is_empty() {
                            "the list item has".to_string()
                        } else {
                            format!("`{key}` has")
                        }
                    ),
                ));
            }
            // A `#` after a space starts a comment: nothing after it counts.
            if at == 0 || line[..at].ends_with([' ', '\t']) {
                break;
            }
            from = at + 1;
        }
    }
    None
}

/// `(key, hex digits)` when the `#` at byte `at` of `line` starts a comment
/// that holds only a colour and follows a key's colon (or a list dash).
fn unquoted_colour(line: &str, at: usize) -> Option<(String, String)> {
    let before = &line[..at];
    // A comment starts only after white space (or at the line's start).
    if !(before.is_empty() || before.ends_with([' ', '\t'])) {
        return None;
    }
    let lead = before.trim_end();
    let key = if let Some(k) = lead.strip_suffix(':') {
        // The key: after the last `{`, `,` or `- ` before the colon.
        let k = k.rsplit(['{', ',']).next().unwrap_or(k).trim();
        let k = k.strip_prefix("- ").unwrap_or(k).trim();
        if k.is_empty() || k.contains(['"', '\'', ' ']) {
            return None;
        }
        k.to_string()
    } else if lead.ends_with('-') && lead.trim_start() == "-" || lead.ends_with(['[', ',']) {
        String::new()
    } else {
        return None;
    };
    let rest = &line[at + 1..];
    let hex: String = rest.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    let after = rest[hex.len()..].trim_start();
    let ends = after.is_empty() || after.starts_with([',', '}', ']']);
    (matches!(hex.len(), 3 | 4 | 6 | 8) && ends).then_some((key, hex))
}

/// serde's "unknown key `x`, expected one of `a`, `b`, …" with the list
/// replaced by the nearest key when one is near enough to be a slip of the
/// keyboard; the whole list otherwise.
pub(super) fn suggest_key(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown key `") else {
        return message.to_string();
    };
    let Some((unknown, list)) = rest.split_once('`') else {
        return message.to_string();
    };
    // serde-saphyr lists the keys bare (`expected one of a, b`), serde's
    // own wording quotes them (`expected one of `a`, `b``).
    let Some((_, keys)) = list.split_once("expected one of ") else {
        return message.to_string();
    };
    let candidates: Vec<&str> = keys
        .split(", ")
        .map(|k| k.trim_matches('`'))
        .filter(|k| !k.is_empty())
        .collect();
    let nearest = candidates
        .iter()
        .map(|c| (distance(&unknown.to_lowercase(), &c.to_lowercase()), *c))
        .min();
    match nearest {
        Some((d, key)) if d <= (unknown.chars().count() / 3).max(1) => {
            format!("unknown key `{unknown}`; did you mean `{key}`?")
        }
        _ => message.to_string(),
    }
}

/// Edit distance with adjacent transpositions (optimal string alignment):
/// `sizee` is 1 from `size`, `fsp` 1 from `fps`.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> Option<(u64, u64, String)> {
        unquoted_colour_in(text)
    }

    #[test]
    fn an_unquoted_colour_is_an_error_at_its_hash() {
        let (line, column, message) = err("defaults:\n  background: #123456\n").unwrap();
        assert_eq!((line, column), (2, 15));
        assert_eq!(
            message,
            "`#123456` is a YAML comment here, so `background` has no value; quote the colour: background: \"#123456\""
        );
        assert_eq!(err("look: { outline: #fff, size: 2 }\n").unwrap().0, 1);
        assert!(err("palette:\n  - #ff00ff\n").is_some());
    }

    #[test]
    fn comments_and_quoted_colours_pass() {
        assert_eq!(err("background: \"#123456\"\n"), None);
        assert_eq!(err("background: '#123456'\n"), None);
        assert_eq!(err("size: 64 # 123456\n"), None);
        assert_eq!(err("# abc\nname: x\n"), None);
        assert_eq!(err("name: a#123456\n"), None);
        assert_eq!(err("background: # see #123\n"), None);
        assert_eq!(err("note: #cafe babe\n"), None);
    }

    #[test]
    fn a_near_key_is_suggested_and_a_far_one_lists_them_all() {
        let msg = "unknown key `sizee`, expected one of `name`, `model`, `size`, `fps`";
        assert_eq!(
            suggest_key(msg),
            "unknown key `sizee`; did you mean `size`?"
        );
        let msg = "unknown key `fsp`, expected one of name, size, fps";
        assert_eq!(suggest_key(msg), "unknown key `fsp`; did you mean `fps`?");
        let msg = "unknown key `zzzzzz`, expected one of `name`, `size`";
        assert_eq!(suggest_key(msg), msg);
        assert_eq!(suggest_key("missing key `model`"), "missing key `model`");
    }
}
