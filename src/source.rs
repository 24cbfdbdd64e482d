//! Source files, byte-offset spans and the line index that turns offsets into `line:col` when rendering.

/// A half-open byte range into one source file. Line and column are computed only when rendering.
#[derive(Debug, Clone, Copy, Default, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl PartialEq for Span {
    /// Spans never take part in structural equality of AST nodes.
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start.min(u32::MAX as usize) as u32,
            end: end.min(u32::MAX as usize) as u32,
        }
    }
}

/// Offsets of line starts, for binary-search `offset → (line, col)`, plus cf-promises' own line counting:
/// its lexer counts a carriage return outside strings and comments as a line break, and does not count the
/// newlines it skips in false `@if` branches. Those differences are kept as adjustments.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    starts: Vec<u32>,
    /// `(offset, running total)`: lines to add for positions after `offset`, sorted by offset.
    adjust: Vec<(u32, i64)>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0u32);
        starts.extend(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| (i + 1).min(u32::MAX as usize) as u32),
        );
        LineIndex {
            starts,
            adjust: Vec::new(),
        }
    }

    /// Add cf-promises' line-count adjustments: `(offset, delta)` pairs, `delta` applying after `offset`.
    pub fn with_adjustments(mut self, mut deltas: Vec<(u32, i64)>) -> LineIndex {
        deltas.sort_by_key(|d| d.0);
        let mut total = 0i64;
        self.adjust = deltas
            .into_iter()
            .map(|(o, d)| {
                total += d;
                (o, total)
            })
            .collect();
        self
    }

    /// 1-based physical line and 1-based byte column of `offset`.
    pub fn physical_line_col(&self, offset: u32) -> (usize, usize) {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.starts.get(line).copied().unwrap_or(0);
        (line + 1, offset.saturating_sub(start) as usize + 1)
    }

    /// Line as cf-promises numbers it, and 1-based byte column of `offset`.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let (line, col) = self.physical_line_col(offset);
        let n = self.adjust.partition_point(|(o, _)| *o < offset);
        let delta = n
            .checked_sub(1)
            .and_then(|i| self.adjust.get(i))
            .map(|a| a.1)
            .unwrap_or(0);
        (((line as i64) + delta).max(1) as usize, col)
    }

    /// 1-based line of `offset`.
    pub fn line(&self, offset: u32) -> usize {
        self.line_col(offset).0
    }

    /// Offset of the last line's start: the text's length up to its last line (a size hint).
    pub fn last_line_start(&self) -> usize {
        self.starts.last().map_or(0, |s| *s as usize)
    }

    /// Byte range of 1-based line `line` (without its newline).
    pub fn line_range(&self, line: usize, text_len: usize) -> (usize, usize) {
        let start = self
            .starts
            .get(line.saturating_sub(1))
            .map(|s| *s as usize)
            .unwrap_or(text_len);
        let end = self
            .starts
            .get(line)
            .map(|s| (*s as usize).saturating_sub(1))
            .unwrap_or(text_len);
        (start.min(text_len), end.max(start).min(text_len))
    }
}

/// One loaded policy file: the path as given by the user, its text and its line index.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
    pub lines: LineIndex,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let lines = LineIndex::new(&text);
        SourceFile {
            path: path.into(),
            text,
            lines,
        }
    }

    /// A file whose line index was built by the parser (with cf-promises' line adjustments).
    pub fn with_lines(
        path: impl Into<String>,
        text: impl Into<String>,
        lines: LineIndex,
    ) -> SourceFile {
        SourceFile {
            path: path.into(),
            text: text.into(),
            lines,
        }
    }

    /// The text of 1-based line `line`, without the newline.
    pub fn line_text(&self, line: usize) -> &str {
        let (s, e) = self.lines.line_range(line, self.text.len());
        self.text.get(s..e).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_of_offsets() {
        let f = SourceFile::new("x.cf", "ab\ncd\n\nef");
        assert_eq!(f.lines.line_col(0), (1, 1));
        assert_eq!(f.lines.line_col(1), (1, 2));
        assert_eq!(f.lines.line_col(3), (2, 1));
        assert_eq!(f.lines.line_col(7), (4, 1));
        assert_eq!(f.line_text(2), "cd");
        assert_eq!(f.line_text(3), "");
        assert_eq!(f.line_text(4), "ef");
    }
}
