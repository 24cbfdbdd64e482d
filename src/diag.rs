//! Diagnostics rendered the way cf-promises prints them: `path:line:col: error: message`, then the source
//! line and a caret under the column.

use crate::source::SourceFile;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One message attached to a byte offset of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// Byte offset the caret points at.
    pub offset: u32,
    /// Column printed instead of the offset's own (cf-promises prints `:0` for whole-block errors).
    pub column: Option<u32>,
    /// Whether the source line and caret follow (cf-promises' policy checks print the header line only).
    pub snippet: bool,
    /// Offset whose line is shown as the snippet when it is not the line of `offset` (a token spanning
    /// lines is reported on the line where it ends with the text of the line where it starts).
    pub snippet_offset: Option<u32>,
    /// A fatal parse error: cf-promises prints `path: LINE,COL: Fatal error during parsing: MSG` and stops.
    pub fatal: bool,
    /// Position and source line as the recovery parser computed them (cf-promises' own line counter,
    /// `line_pos` and current line), used instead of `offset`'s.
    pub explicit: Option<Box<Explicit>>,
}

/// A position taken over verbatim from cf-promises' lexer state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explicit {
    pub line: u32,
    pub col: u32,
    /// The line printed under the message; `None` prints no source line and no caret.
    pub shown: Option<String>,
}

impl Diagnostic {
    pub fn error(offset: u32, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            offset,
            column: None,
            snippet: true,
            snippet_offset: None,
            explicit: None,
            fatal: false,
        }
    }

    /// A policy-check error: header line only, optionally with an explicit column.
    pub fn check(offset: u32, column: Option<u32>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            offset,
            column,
            snippet: false,
            snippet_offset: None,
            explicit: None,
            fatal: false,
        }
    }

    pub fn warning(offset: u32, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            message: message.into(),
            offset,
            column: None,
            snippet: true,
            snippet_offset: None,
            explicit: None,
            fatal: false,
        }
    }

    /// 1-based line of the diagnostic in `file`.
    pub fn line(&self, file: &SourceFile) -> usize {
        file.lines.line(self.offset)
    }

    /// `path:line:col: error: message`, the source line, and a caret line.
    pub fn render(&self, file: &SourceFile) -> String {
        if let Some(x) = &self.explicit {
            return self.render_explicit(&file.path, x);
        }
        let (line, col) = file.lines.line_col(self.offset);
        let col = self.column.map(|c| c as usize).unwrap_or(col);
        if self.fatal {
            return format!(
                "{}: {},{}: Fatal error during parsing: {}\n",
                file.path, line, col, self.message
            );
        }
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // cf-promises prints no source line for messages on line 1 (its line buffer is not filled yet).
        if !self.snippet || line == 1 {
            return format!(
                "{}:{}:{}: {}: {}\n",
                file.path, line, col, sev, self.message
            );
        }
        let shown = self.snippet_offset.unwrap_or(self.offset);
        let text = file.line_text(file.lines.physical_line_col(shown).0);
        let text = text.strip_suffix('\r').unwrap_or(text);
        // cf-promises prints the line as a C string: it ends at a NUL byte.
        let text = text.split('\0').next().unwrap_or("");
        // cf-promises pads the caret with spaces (`printf("%*s")`), tabs included.
        let caret_pad = " ".repeat(col.saturating_sub(1));
        format!(
            "{}:{}:{}: {}: {}\n{}\n{}^\n",
            file.path, line, col, sev, self.message, text, caret_pad
        )
    }
}

impl Diagnostic {
    fn render_explicit(&self, path: &str, x: &Explicit) -> String {
        if self.fatal {
            return format!(
                "{}: {},{}: Fatal error during parsing: {}\n",
                path, x.line, x.col, self.message
            );
        }
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match &x.shown {
            Some(text) => format!(
                "{}:{}:{}: {}: {}\n{}\n{}^\n",
                path,
                x.line,
                x.col,
                sev,
                self.message,
                text,
                " ".repeat((x.col as usize).saturating_sub(1))
            ),
            None => format!("{}:{}:{}: {}: {}\n", path, x.line, x.col, sev, self.message),
        }
    }
}
