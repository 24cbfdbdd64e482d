//! The module protocol of CFEngine 3.21 (`commands: "cmd" module => "true";`): module output lines parsed
//! into typed events, with the agent's exact log messages. Pure: no evaluator, no process, no file access.
//! The caller applies the events in order (defining classes, storing variables, printing the logs) and
//! decides what is fatal (`-hardclass`, see [`negate_hard_class_message`]).
//!
//! Line grammar (first byte decides; observed on cf-agent 3.21.0, see policies/modules/):
//! `+name` class (canonified, `ns:name` allowed), `-a,b` undefine each name as written, `=name=value` scalar,
//! `@name={ "a", 'b' }` list, `%name={json}` data, `&name=/path` data from a file, `^context=`, `^meta=`,
//! `^persistence=`; anything else is ignored (shown as `M '<cmd>': line` only when output is on).
//! A line containing `cfengine-die` stops the parse. Names are cut to 256 bytes, values to 4095.

use serde_json::Value;

use super::rlist;

/// Longest variable name the agent reads (`%256[^=]`); a longer name gets an empty value.
pub const MAX_NAME: usize = 256;
/// Longest value the agent reads (`%4095[^\n]`).
pub const MAX_VALUE: usize = 4095;
/// Longest `^context` the agent reads; longer ones are cut, then validated.
pub const MAX_CONTEXT: usize = 50;
/// Longest `+class`/`-class` line (sigil included) the agent accepts.
pub const MAX_CLASS_LINE: usize = 1024;
/// Longest `=`/`@` line (sigil included) the agent accepts.
pub const MAX_VARIABLE_LINE: usize = 4096 + 256;
/// Longest `@` list item the agent accepts.
pub const MAX_LIST_ITEM: usize = 1024;
/// Longest `^meta` value the agent reads; longer ones are cut before splitting.
pub const MAX_META: usize = 1024;
/// The marker that makes the agent stop reading module output.
pub const DIE_MARKER: &str = "cfengine-die";

/// Log level of a protocol message, as the agent prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Info,
}

/// Tags of a class or variable: `^meta` tags followed by `source=module`, or none without `^meta`.
pub type Tags = Vec<String>;

/// One effect of one module output line.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    DefineClass {
        namespace: Option<String>,
        name: String,
        tags: Tags,
        /// Minutes from `^persistence`; 0 = not persistent.
        persistence: u32,
    },
    UndefineClass {
        name: String,
    },
    Scalar {
        context: String,
        name: String,
        value: String,
        tags: Tags,
    },
    List {
        context: String,
        name: String,
        items: Vec<String>,
        tags: Tags,
    },
    Data {
        context: String,
        name: String,
        value: Value,
        tags: Tags,
    },
    /// `&name=path`: the caller loads the file through the host (see [`data_file_error`]).
    DataFromFile {
        context: String,
        name: String,
        path: String,
        tags: Tags,
    },
    Log {
        level: Level,
        message: String,
    },
    /// A non-protocol, non-empty line.
    Ignored {
        line: String,
    },
}

/// Canonify like the agent: every byte that is not an ASCII letter, digit or `_` becomes `_`.
pub fn canonify(name: &[u8]) -> Vec<u8> {
    name.iter()
        .map(|&b| if b.is_ascii_alphanumeric() { b } else { b'_' })
        .collect()
}

fn canonify_str(name: &str) -> String {
    String::from_utf8_lossy(&canonify(name.as_bytes())).into_owned()
}

/// `argv[0]` of a command line: the first word, or the first quoted string (quotes removed).
pub fn argv0(command: &str) -> &str {
    let cmd = command.trim_start();
    for q in ['"', '\''] {
        if let Some(rest) = cmd.strip_prefix(q) {
            return rest.split(q).next().unwrap_or(rest);
        }
    }
    cmd.split([' ', '\t']).next().unwrap_or(cmd)
}

/// The default context of a module: the canonified basename of `argv[0]` (`/m/my-mod.sh x` → `my_mod_sh`).
pub fn default_context(command: &str) -> String {
    let a0 = argv0(command);
    canonify_str(a0.rsplit('/').next().unwrap_or(a0))
}

/// The fatal error the agent stops with when a module negates a hard class.
pub fn negate_hard_class_message(name: &str) -> String {
    format!("Fatal CFEngine error: Cannot negate the reserved class '{name}'")
}

/// The error the agent logs when a command exits non-zero (the promise is then not kept).
pub fn exit_error_message(command: &str, code: i32) -> String {
    format!(
        "Finished command related to promiser '{command}' -- an error occurred, returned {code}"
    )
}

/// The error logged for an `&name=path` file that cannot be read.
pub fn data_file_error(path: &str) -> String {
    format!("could not load module file '{path}'")
}

fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Split `name=value` the way `sscanf("%256[^=]=%4095[^\n]")` does: the value is empty when the name is
/// empty, longer than 256 bytes, or not followed by `=`; it is cut at [`MAX_VALUE`] bytes (`=`, `@`).
pub fn split_assignment(rest: &str) -> (String, String) {
    split_with_limit(rest, MAX_VALUE)
}

/// [`split_assignment`] with another value limit (`%` and `&` values are not cut: observed, 5000 bytes of
/// JSON accepted).
pub fn split_with_limit(rest: &str, value_limit: usize) -> (String, String) {
    let name_end = rest.find('=').unwrap_or(rest.len());
    let name = cut(&rest[..name_end], MAX_NAME);
    let value = if name.is_empty() || name.len() != name_end || name_end == rest.len() {
        ""
    } else {
        cut(&rest[name_end + 1..], value_limit)
    };
    (name.to_string(), value.to_string())
}

/// The agent's JSON error text. Observed with 3.21.0 (policies/modules/data): input starting with `[` that
/// does not parse → "did not end with ']'"; anything else (`{oops`, `not json`) → "unrecognized token
/// beginning entry". Other failure kinds of CFEngine's JSON parser are folded into these two.
pub fn json_error_reason(text: &str) -> &'static str {
    if text.trim_start().starts_with('[') {
        "Unable to parse json data as array, did not end with ']'"
    } else {
        "Unable to parse json data as object, unrecognized token beginning entry"
    }
}

/// Stateful parser of one module run: context, `^meta` tags and `^persistence` carry across lines.
#[derive(Debug, Clone)]
pub struct ModuleParser {
    context: String,
    tags: Tags,
    persistence: u32,
    died: bool,
}

impl ModuleParser {
    /// A parser for the module run by `command` (its promiser with arguments).
    pub fn new(command: &str) -> ModuleParser {
        ModuleParser {
            context: default_context(command),
            tags: Vec::new(),
            persistence: 0,
            died: false,
        }
    }

    /// True once a `cfengine-die` line was seen: later lines are not read.
    pub fn died(&self) -> bool {
        self.died
    }

    /// The current variable context.
    pub fn context(&self) -> &str {
        &self.context
    }

    /// Parse one output line (without its newline), appending its events.
    pub fn line(&mut self, line: &str, out: &mut Vec<Event>) {
        if self.died {
            return;
        }
        if line.contains(DIE_MARKER) {
            self.died = true;
            return;
        }
        let Some(first) = line.chars().next() else {
            return;
        };
        let rest = &line[first.len_utf8()..];
        let overlong = match first {
            '+' | '-' if line.len() > MAX_CLASS_LINE => Some(format!("{first}class line")),
            '=' | '@' if line.len() > MAX_VARIABLE_LINE => Some(format!("variable {first}line")),
            _ => None,
        };
        if let Some(what) = overlong {
            let n = line.len();
            let msg = format!("Module protocol was given an overlong {what} ({n} bytes), skipping");
            out.push(log(Level::Error, msg));
            return;
        }
        match first {
            '+' => self.define(rest, out),
            '-' => out.extend(rest.split(',').filter(|n| !n.is_empty()).map(|n| {
                Event::UndefineClass {
                    name: n.to_string(),
                }
            })),
            '=' | '@' | '%' | '&' => self.assign(first, rest, out),
            '^' => self.extended(line, rest, out),
            _ => out.push(Event::Ignored {
                line: line.to_string(),
            }),
        }
    }

    fn define(&self, rest: &str, out: &mut Vec<Event>) {
        if rest.is_empty() {
            return;
        }
        let (namespace, name) = match rest.split_once(':') {
            Some((ns, n)) => (Some(canonify_str(ns)), canonify_str(n)),
            None => (None, canonify_str(rest)),
        };
        out.push(Event::DefineClass {
            namespace,
            name,
            tags: self.tags.clone(),
            persistence: self.persistence,
        });
    }

    fn assign(&self, sigil: char, rest: &str, out: &mut Vec<Event>) {
        let limit = if matches!(sigil, '=' | '@') {
            MAX_VALUE
        } else {
            usize::MAX
        };
        let (name, value) = split_with_limit(rest, limit);
        let (context, tags) = (self.context.clone(), self.tags.clone());
        match sigil {
            '=' => out.push(Event::Scalar {
                context,
                name,
                value,
                tags,
            }),
            '@' => match rlist::parse(&value) {
                Ok(items) if items.iter().any(|i| i.len() > MAX_LIST_ITEM) => out.push(log(
                    Level::Error,
                    "Module protocol was given a variable @ line with an oversize entry, skipping"
                        .into(),
                )),
                Ok(items) => out.push(Event::List {
                    context,
                    name,
                    items,
                    tags,
                }),
                Err(e) => {
                    out.push(log(Level::Error, e.message().to_string()));
                    out.push(log(
                        Level::Error,
                        format!("Module protocol could not parse variable {name}'s data content {value}"),
                    ));
                }
            },
            '%' => match serde_json::from_str::<Value>(&value) {
                Ok(mut v) if v.is_object() || v.is_array() => {
                    // reals are kept as their %.4f text, as by every JSON parse of the agent
                    crate::functions::json::store_numbers(&mut v);
                    out.push(Event::Data {
                        context,
                        name,
                        value: v,
                        tags,
                    })
                }
                Ok(_) => out.push(log(
                    Level::Info,
                    "Module protocol JSON '' should be object or array; wasn't".into(),
                )),
                Err(_) => out.push(log(
                    Level::Info,
                    format!(
                        "Failed to parse JSON '' for module protocol: {}",
                        json_error_reason(&value)
                    ),
                )),
            },
            _ => out.push(Event::DataFromFile {
                context,
                name,
                path: value,
                tags,
            }),
        }
    }

    fn extended(&mut self, line: &str, rest: &str, out: &mut Vec<Event>) {
        let unknown = || {
            log(
                Level::Info,
                format!("Unknown extended module command '{line}'"),
            )
        };
        if let Some(ctx) = rest.strip_prefix("context=").filter(|c| !c.is_empty()) {
            let ctx = cut(ctx, MAX_CONTEXT);
            if ctx.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                self.context = ctx.to_string();
            } else {
                out.push(log(
                    Level::Error,
                    format!("Module protocol was given an unacceptable ^context directive '{ctx}', skipping"),
                ));
            }
        } else if let Some(meta) = rest.strip_prefix("meta=").filter(|m| !m.is_empty()) {
            self.tags = cut(meta, MAX_META).split(',').map(str::to_string).collect();
            self.tags.push("source=module".into());
        } else if let Some(n) = rest.strip_prefix("persistence=") {
            let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
            match digits.parse::<u32>() {
                Ok(minutes) => self.persistence = minutes,
                Err(_) => out.push(unknown()),
            }
        } else {
            out.push(unknown());
        }
    }
}

fn log(level: Level, message: String) -> Event {
    Event::Log { level, message }
}

/// Parse a whole module output (stdout and stderr merged) for `command`, stopping at `cfengine-die`.
pub fn parse_output(command: &str, output: &str) -> Vec<Event> {
    let mut parser = ModuleParser::new(command);
    let mut events = Vec::new();
    let body = output.strip_suffix('\n').unwrap_or(output);
    for line in body.split('\n').filter(|_| !output.is_empty()) {
        parser.line(line, &mut events);
        if parser.died() {
            break;
        }
    }
    events
}

/// Load an `&name=path` data file from its contents (`None` = unreadable), choosing the format by suffix as
/// the agent does. JSON (`.json` and unknown suffixes) is parsed here; `.yaml`/`.yml`, `.csv` and `.env` are
/// reported as unsupported by cfsim. Errors are the agent's log messages.
pub fn load_data_file(path: &str, contents: Option<&str>) -> Result<Value, String> {
    let Some(text) = contents else {
        return Err(data_file_error(path));
    };
    let lower = path.to_ascii_lowercase();
    if [".yaml", ".yml", ".csv", ".env"]
        .iter()
        .any(|s| lower.ends_with(s))
    {
        return Err(format!(
            "cfsim does not read this data file format: '{path}'"
        ));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(mut v) => {
            crate::functions::json::store_numbers(&mut v);
            Ok(v)
        }
        Err(_) => Err(format!(
            "module file protocol: error parsing JSON file '{path}': {}",
            json_error_reason(text)
        )),
    }
}
