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

/// Offsets of line starts, for binary-search `offset → (line, col)`.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push((i + 1).min(u32::MAX as usize) as u32);
            }
        }
        LineIndex { starts }
    }

    /// 1-based line and 1-based byte column of `offset`.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.starts.get(line).copied().unwrap_or(0);
        (line + 1, (offset - start) as usize + 1)
    }

    /// 1-based line of `offset`.
    pub fn line(&self, offset: u32) -> usize {
        self.line_col(offset).0
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
