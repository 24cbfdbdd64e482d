//! cf3parse.y of CFEngine 3.21 as a table: terminals, productions in the grammar's order (mid-rule actions
//! become empty rules placed before their rule, as bison numbers them), and the action each rule runs.

/// Terminal symbols. Every character the grammar does not name lexes to `OTHER` (bison's `$undefined`).
pub const T_EOF: u16 = 0;
pub const T_ERROR: u16 = 1;
pub const T_IDSYNTAX: u16 = 2;
pub const T_QSTRING: u16 = 4;
pub const T_CLASS: u16 = 5;
pub const T_PROMISE_GUARD: u16 = 6;
pub const T_BUNDLE: u16 = 7;
pub const T_BODY: u16 = 8;
pub const T_PROMISE: u16 = 9;
pub const T_ASSIGN: u16 = 10;
pub const T_ARROW: u16 = 11;
pub const T_NAKEDVAR: u16 = 12;
pub const T_LPAREN: u16 = 13;
pub const T_RPAREN: u16 = 14;
pub const T_LBRACE: u16 = 15;
pub const T_RBRACE: u16 = 16;
pub const T_COMMA: u16 = 17;
pub const T_SEMI: u16 = 18;
pub const T_OTHER: u16 = 19;
/// Number of terminals.
pub const NTERMS: usize = 20;

const TERM_NAMES: [&str; NTERMS] = [
    "$end",
    "error",
    "IDSYNTAX",
    "BLOCKID",
    "QSTRING",
    "CLASS",
    "PROMISE_GUARD",
    "BUNDLE",
    "BODY",
    "PROMISE",
    "ASSIGN",
    "ARROW",
    "NAKEDVAR",
    "'('",
    "')'",
    "'{'",
    "'}'",
    "','",
    "';'",
    "$undefined",
];

/// What a rule's action does (only the effects that print, skip checks or steer the parse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    None,
    /// `block: error`: message, then YYABORT.
    BlockError,
    BeginBundle,
    BeginBody,
    BeginPromise,
    BundleTypeCheck,
    BundleTypeError,
    BundleIdError,
    BodyTypeError,
    BodyIdError,
    PromiseTypeCheck,
    PromiseTypeError,
    PromiseIdError,
    TypeId,
    Symbol,
    ArglistError,
    AitemError,
    BeginBundleBody,
    EndBlock,
    BodyBeginError,
    BundleStatementsError,
    PromiseGuard,
    PromiserError,
    Promiser,
    PromiseDeclError,
    ConstraintsDeclError,
    Constraint,
    ConstraintId,
    ConstraintIdError,
    BeginBlockBody,
    SelectionLineError,
    Selection,
    SelectionId,
    SelectionIdError,
    AssignError,
    Class,
    RvalId,
    RvalString,
    RvalNakedVar,
    RvalList,
    RvalCall,
    RvalError,
    LitemCall,
    LitemsError,
    Litem,
    LitemError,
    FnId,
    FnNakedVar,
    ArgsOpen,
    ArgsClose,
    GaitemsError,
    Gaitem,
    GaitemError,
}

/// One production: `lhs: rhs { act }`.
pub struct Rule {
    pub lhs: &'static str,
    pub rhs: &'static [&'static str],
    pub act: Act,
}

const fn r(lhs: &'static str, rhs: &'static [&'static str], act: Act) -> Rule {
    Rule { lhs, rhs, act }
}

/// The productions; rule 0 is bison's `$accept: specification $end`.
pub const RULES: &[Rule] = &[
    r("$accept", &["specification", "$end"], Act::None),
    r("specification", &[], Act::None),
    r("specification", &["blocks"], Act::None),
    r("blocks", &["block"], Act::None),
    r("blocks", &["blocks", "block"], Act::None),
    r("block", &["bundle"], Act::None),
    r("block", &["body"], Act::None),
    r("block", &["promise"], Act::None),
    r("block", &["error"], Act::BlockError),
    r(
        "bundle",
        &["BUNDLE", "bundletype", "bundleid", "arglist", "bundlebody"],
        Act::None,
    ),
    r(
        "body",
        &["BODY", "bodytype", "bodyid", "arglist", "bodybody"],
        Act::None,
    ),
    r(
        "promise",
        &["PROMISE", "promisetype", "promiseid", "arglist", "bodybody"],
        Act::None,
    ),
    r("bundletype", &["bundletype_values"], Act::BeginBundle),
    r("bundletype_values", &["typeid"], Act::BundleTypeCheck),
    r("bundletype_values", &["error"], Act::BundleTypeError),
    r("bundleid", &["bundleid_values"], Act::None),
    r("bundleid_values", &["symbol"], Act::None),
    r("bundleid_values", &["error"], Act::BundleIdError),
    r("bodytype", &["bodytype_values"], Act::BeginBody),
    r("bodytype_values", &["typeid"], Act::None),
    r("bodytype_values", &["error"], Act::BodyTypeError),
    r("bodyid", &["bodyid_values"], Act::None),
    r("bodyid_values", &["symbol"], Act::None),
    r("bodyid_values", &["error"], Act::BodyIdError),
    r("promisetype", &["promisetype_values"], Act::BeginPromise),
    r("promisetype_values", &["typeid"], Act::PromiseTypeCheck),
    r("promisetype_values", &["error"], Act::PromiseTypeError),
    r("promiseid", &["promiseid_values"], Act::None),
    r("promiseid_values", &["symbol"], Act::None),
    r("promiseid_values", &["error"], Act::PromiseIdError),
    r("typeid", &["IDSYNTAX"], Act::TypeId),
    r("symbol", &["IDSYNTAX"], Act::Symbol),
    r("arglist", &[], Act::None),
    r(
        "arglist",
        &["arglist_begin", "aitems", "arglist_end"],
        Act::None,
    ),
    r("arglist", &["arglist_begin", "arglist_end"], Act::None),
    r("arglist", &["arglist_begin", "error"], Act::ArglistError),
    r("arglist_begin", &["'('"], Act::None),
    r("arglist_end", &["')'"], Act::None),
    r("aitems", &["aitem"], Act::None),
    r("aitems", &["aitems", "','", "aitem"], Act::None),
    r("aitem", &["IDSYNTAX"], Act::None),
    r("aitem", &["error"], Act::AitemError),
    r("$@1", &[], Act::BeginBundleBody),
    r(
        "bundlebody",
        &["body_begin", "$@1", "bundle_decl", "'}'"],
        Act::EndBlock,
    ),
    r("body_begin", &["'{'"], Act::None),
    r("body_begin", &["error"], Act::BodyBeginError),
    r("bundle_decl", &[], Act::None),
    r("bundle_decl", &["bundle_statements"], Act::None),
    r("bundle_statements", &["bundle_statement"], Act::None),
    r(
        "bundle_statements",
        &["bundle_statements", "bundle_statement"],
        Act::None,
    ),
    r("bundle_statements", &["error"], Act::BundleStatementsError),
    r(
        "bundle_statement",
        &["promise_guard", "classpromises_decl"],
        Act::None,
    ),
    r("promise_guard", &["PROMISE_GUARD"], Act::PromiseGuard),
    r("classpromises_decl", &[], Act::None),
    r("classpromises_decl", &["classpromises"], Act::None),
    r("classpromises", &["classpromise"], Act::None),
    r(
        "classpromises",
        &["classpromises", "classpromise"],
        Act::None,
    ),
    r("classpromise", &["class"], Act::None),
    r("classpromise", &["promise_decl"], Act::None),
    r("promise_decl", &["promise_line", "';'"], Act::None),
    r(
        "promise_decl",
        &["promiser", "error"],
        Act::PromiseDeclError,
    ),
    r("promise_line", &["promisee_statement"], Act::None),
    r("promise_line", &["promiser_statement"], Act::None),
    r("$@2", &[], Act::None),
    r(
        "promisee_statement",
        &[
            "promiser",
            "arrow_type",
            "rval",
            "$@2",
            "promiser_constraints_decl",
        ],
        Act::None,
    ),
    r("$@3", &[], Act::None),
    r(
        "promiser_statement",
        &["promiser", "$@3", "promiser_constraints_decl"],
        Act::None,
    ),
    r("promiser", &["QSTRING"], Act::Promiser),
    r("promiser", &["error"], Act::PromiserError),
    r("promiser_constraints_decl", &[], Act::None),
    r(
        "promiser_constraints_decl",
        &["constraints_decl"],
        Act::None,
    ),
    r(
        "promiser_constraints_decl",
        &["constraints_decl", "error"],
        Act::ConstraintsDeclError,
    ),
    r("constraints_decl", &["constraints"], Act::None),
    r("constraints", &["constraint"], Act::None),
    r(
        "constraints",
        &["constraints", "','", "constraint"],
        Act::None,
    ),
    r(
        "constraint",
        &["constraint_id", "assign_type", "rval"],
        Act::Constraint,
    ),
    r("constraint_id", &["IDSYNTAX"], Act::ConstraintId),
    r("constraint_id", &["error"], Act::ConstraintIdError),
    r("$@4", &[], Act::BeginBlockBody),
    r(
        "bodybody",
        &["body_begin", "$@4", "bodyattribs", "'}'"],
        Act::EndBlock,
    ),
    r("bodyattribs", &["bodyattrib"], Act::None),
    r("bodyattribs", &["bodyattribs", "bodyattrib"], Act::None),
    r("bodyattrib", &["class"], Act::None),
    r("bodyattrib", &["selection_line"], Act::None),
    r("selection_line", &["selection", "';'"], Act::None),
    r(
        "selection_line",
        &["selection", "error"],
        Act::SelectionLineError,
    ),
    r(
        "selection",
        &["selection_id", "assign_type", "rval"],
        Act::Selection,
    ),
    r("selection_id", &["IDSYNTAX"], Act::SelectionId),
    r("selection_id", &["error"], Act::SelectionIdError),
    r("assign_type", &["ASSIGN"], Act::None),
    r("assign_type", &["error"], Act::AssignError),
    r("arrow_type", &["ARROW"], Act::None),
    r("class", &["CLASS"], Act::Class),
    r("rval", &["IDSYNTAX"], Act::RvalId),
    r("rval", &["BLOCKID"], Act::RvalId),
    r("rval", &["QSTRING"], Act::RvalString),
    r("rval", &["NAKEDVAR"], Act::RvalNakedVar),
    r("rval", &["list"], Act::RvalList),
    r("rval", &["usefunction"], Act::RvalCall),
    r("rval", &["error"], Act::RvalError),
    r("list", &["'{'", "'}'"], Act::None),
    r("list", &["'{'", "litems", "'}'"], Act::None),
    r("list", &["'{'", "litems", "','", "'}'"], Act::None),
    r("litems", &["litem"], Act::None),
    r("litems", &["litems", "','", "litem"], Act::None),
    r("litems", &["litem", "error"], Act::LitemsError),
    r("litem", &["IDSYNTAX"], Act::Litem),
    r("litem", &["QSTRING"], Act::Litem),
    r("litem", &["NAKEDVAR"], Act::Litem),
    r("litem", &["usefunction"], Act::LitemCall),
    r("litem", &["error"], Act::LitemError),
    r("functionid", &["IDSYNTAX"], Act::FnId),
    r("functionid", &["BLOCKID"], Act::FnId),
    r("functionid", &["NAKEDVAR"], Act::FnNakedVar),
    r("usefunction", &["functionid", "givearglist"], Act::None),
    r("$@5", &[], Act::ArgsOpen),
    r(
        "givearglist",
        &["'('", "$@5", "gaitems", "')'"],
        Act::ArgsClose,
    ),
    r("gaitems", &[], Act::None),
    r("gaitems", &["gaitem"], Act::None),
    r("gaitems", &["gaitems", "','", "gaitem"], Act::None),
    r("gaitems", &["gaitem", "error"], Act::GaitemsError),
    r("gaitem", &["IDSYNTAX"], Act::Gaitem),
    r("gaitem", &["QSTRING"], Act::Gaitem),
    r("gaitem", &["NAKEDVAR"], Act::Gaitem),
    r("gaitem", &["usefunction"], Act::None),
    r("gaitem", &["error"], Act::GaitemError),
];

/// Index of a terminal name, if `name` is one.
pub fn terminal(name: &str) -> Option<u16> {
    TERM_NAMES.iter().position(|t| *t == name).map(|i| i as u16)
}
