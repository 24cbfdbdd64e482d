//! What a run prints, in order: `R:` report lines and log lines formatted as cf-agent formats them (level
//! right-aligned in 8 columns), filtered by the run's log level (default notice; `-I` info, `-v` verbose).

/// Log levels, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Error,
    Warning,
    Notice,
    Info,
    Verbose,
    Debug,
}

impl LogLevel {
    /// The level's name as cf-agent prints it.
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warning => "warning",
            LogLevel::Notice => "notice",
            LogLevel::Info => "info",
            LogLevel::Verbose => "verbose",
            LogLevel::Debug => "debug",
        }
    }

    /// Parses `-g` level names (`error`, `warning`, `notice`, `inform`/`info`, `verbose`, `debug`).
    pub fn parse(s: &str) -> Option<LogLevel> {
        Some(match s {
            "error" | "critical" | "crit" | "alert" | "emergency" => LogLevel::Error,
            "warning" | "warn" => LogLevel::Warning,
            "notice" => LogLevel::Notice,
            "info" | "inform" => LogLevel::Info,
            "verbose" => LogLevel::Verbose,
            "debug" => LogLevel::Debug,
            _ => return None,
        })
    }
}

/// Collected output of a run.
#[derive(Debug, Clone)]
pub struct Output {
    pub level: LogLevel,
    pub lines: Vec<String>,
    /// While a file is edited, INFO lines wait here: the agent prints them only if the edit ends
    /// repaired, after everything else the edit printed.
    pub info_buffer: Option<Vec<String>>,
}

impl Output {
    /// Empty output at `level`.
    pub fn new(level: LogLevel) -> Output {
        Output {
            level,
            lines: Vec::new(),
            info_buffer: None,
        }
    }

    /// Whether messages of `level` are shown.
    pub fn shows(&self, level: LogLevel) -> bool {
        level <= self.level
    }

    /// A log line (`   error: msg`), when the level is shown.
    pub fn log(&mut self, level: LogLevel, msg: &str) {
        if self.shows(level) {
            let line = format!("{:>8}: {msg}", level.name());
            match (&mut self.info_buffer, level) {
                (Some(b), LogLevel::Info) => b.push(line),
                _ => self.lines.push(line),
            }
        }
    }

    /// A raw line (report lines, `Q:` continuation lines).
    pub fn raw(&mut self, line: String) {
        self.lines.push(line);
    }

    /// Everything printed, newline-terminated lines.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for l in &self.lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }
}
