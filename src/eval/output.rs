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
#[derive(Debug)]
pub struct Output {
    pub level: LogLevel,
    /// Lines not yet streamed (all of them when the output is not streamed).
    pub lines: Vec<String>,
    /// While a file is edited, INFO lines wait here: the agent prints them only if the edit ends
    /// repaired, after everything else the edit printed.
    pub info_buffer: Option<Vec<String>>,
    /// `cfsim agent` on a terminal or pipe: lines go to standard output as they are made (a dry run of
    /// a large policy prints hundreds of megabytes, as the agent does, without holding them).
    stream: Option<std::io::BufWriter<std::io::Stdout>>,
    /// The `R:` lines already streamed (the run's result lists the reports).
    pub streamed_reports: Vec<String>,
}

impl Clone for Output {
    /// A copy of what was collected; a copy never streams.
    fn clone(&self) -> Self {
        Output {
            level: self.level,
            lines: self.lines.clone(),
            info_buffer: self.info_buffer.clone(),
            stream: None,
            streamed_reports: self.streamed_reports.clone(),
        }
    }
}

impl Output {
    /// Empty output at `level`.
    pub fn new(level: LogLevel) -> Output {
        Output {
            level,
            lines: Vec::new(),
            info_buffer: None,
            stream: None,
            streamed_reports: Vec::new(),
        }
    }

    /// From now on lines go to standard output as they are made, those collected so far first.
    pub fn start_streaming(&mut self) {
        let mut w = std::io::BufWriter::new(std::io::stdout());
        for l in std::mem::take(&mut self.lines) {
            Self::emit(&mut w, &mut self.streamed_reports, l);
        }
        self.stream = Some(w);
    }

    /// Back to collecting (after flushing what was streamed).
    pub fn stop_streaming(&mut self) {
        if let Some(mut w) = self.stream.take() {
            use std::io::Write;
            let _ = w.flush();
        }
    }

    fn emit(w: &mut std::io::BufWriter<std::io::Stdout>, reports: &mut Vec<String>, line: String) {
        use std::io::Write;
        let _ = writeln!(w, "{line}");
        if line.starts_with("R: ") {
            reports.push(line);
        }
    }

    /// Adds a finished line: streamed or collected.
    pub fn push(&mut self, line: String) {
        match &mut self.stream {
            Some(w) => Self::emit(w, &mut self.streamed_reports, line),
            None => self.lines.push(line),
        }
    }

    /// Every `R:` line of the run so far, streamed or not.
    pub fn report_lines(&self) -> Vec<String> {
        self.streamed_reports
            .iter()
            .chain(self.lines.iter().filter(|l| l.starts_with("R: ")))
            .cloned()
            .collect()
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
                _ => self.push(line),
            }
        }
    }

    /// A raw line (report lines, `Q:` continuation lines).
    pub fn raw(&mut self, line: String) {
        self.push(line);
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
