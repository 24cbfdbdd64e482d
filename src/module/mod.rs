//! Modules run by `commands` promises with `module => "true"`: the line protocol (`protocol`), the list
//! literal of `@` lines (`rlist`) and running a real executable with a timeout (`process`).

pub mod process;
pub mod promise_module;
pub mod protocol;
pub mod rlist;
