//! ast-grep rules: the `rule` argument of `ast_grep` and `ast_edit` (with `constraints`, `utils`
//! and `transform` beside it), compiled by ast-grep's own `ast-grep-config` crate so that every
//! key means what it means in ast-grep's YAML rules:
//!
//! - atomic: `pattern` (a string, or an object with `context`, `selector`, `strictness`),
//!   `kind` (a node kind or a kind selector such as `call_expression > identifier`), `regex`,
//!   `nthChild`, `range` (0-based lines and columns, as in ast-grep);
//! - relational: `inside`, `has`, `precedes`, `follows`, each with `stopBy`
//!   (`neighbor` | `end` | a rule) and, for `inside`/`has`, `field`;
//! - composite: `all`, `any`, `not`, `matches` (an id from `utils`).
//!
//! Before ast-grep sees the rule, [`compile_rule`] walks it and reports the first problem with
//! the path of the offending key (`rule.inside.kind: unknown kind "fn_item" for rust; did you
//! mean `function_item`?`), suggestions drawn from the grammar's own node kinds and field
//! names. It also refuses what ast-grep accepts silently and never matches: a rule `pattern`
//! whose parse has a syntax error (the error shows a `context` + `selector` object that does
//! parse, found with the contextual compiler), and `constraints` on a `$$$` metavariable (ast-grep
//! applies constraints to single metavariables only). A pattern string in a rule is compiled as
//! ast-grep compiles it (bare, not in our wrapping contexts); when our contexts read it as a
//! different node kind the result warns and shows the `context` + `selector` form.
//!
//! The walk also derives the rule's literal pre-filter ([`LiteralRequirement`]): texts of the
//! patterns of `all` members and relational sub-rules are required (the related node is in the
//! same file), and so are the literal runs a `regex` requires (`^Result<` → `Result<`); `any`
//! requires one text per branch; `not`, `kind`, `nthChild` and `range` require nothing.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use ast_grep_config::{DeserializeEnv, RuleCore, RuleCoreError, SerializableRule, SerializableRuleCore};
use ast_grep_core::matcher::MatcherExt;
use ast_grep_core::matcher::PatternNode;
use ast_grep_core::meta_var::{MetaVarEnv, MetaVariable};
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc};
use ast_grep_core::{AstGrep, Doc, Language, MatchStrictness, Matcher, Node, Pattern, PatternError};
use ast_grep_language::SupportLang;
use bit_set::BitSet;
use serde_json::{json, Map, Value};

use crate::error::ToolError;
use crate::structural::compile::{compile_pattern, language_id, lint_metavariables, multi_metavariable_nesting_refusal};
use crate::structural::contexts::language_contexts;
use crate::structural::evaluate::{transform_core, RuleProgram};
use crate::structural::literals::{pattern_required_texts, regex_required_texts, LiteralRequirement};
use crate::structural::suggest::{did_you_mean, field_names, node_kinds};

/// Keys of a rule object.
const RULE_KEYS: &[&str] =
    &["pattern", "kind", "regex", "nthChild", "range", "inside", "has", "precedes", "follows", "all", "any", "not", "matches"];
/// Extra keys of a relational rule (`inside`, `has`, `precedes`, `follows`).
const RELATIONAL_KEYS: &[&str] = &["stopBy", "field"];
/// Keys of a pattern object.
const PATTERN_OBJECT_KEYS: &[&str] = &["context", "selector", "strictness"];
/// `strictness` values.
const STRICTNESS: &[&str] = &["cst", "smart", "ast", "relaxed", "signature", "template"];

/// The rule arguments of one call, as JSON.
#[derive(Debug, Clone, Copy)]
pub struct RuleInput<'a> {
    /// The rule object (`{"pattern": …, "inside": …}`).
    pub rule: &'a Value,
    /// `{"VAR": rule, …}`: a rule each single metavariable's node must also match.
    pub constraints: Option<&'a Value>,
    /// `{"id": rule, …}`: utility rules that `matches` refers to.
    pub utils: Option<&'a Value>,
    /// `{"NEW_VAR": transformation, …}`: ast-grep transformations (`substring`, `replace`,
    /// `convert`, `rewrite`) usable in a rewrite template.
    pub transform: Option<&'a Value>,
}

/// A rule compiled for one language, ready to match.
pub struct CompiledRule {
    /// The language the rule was compiled for.
    pub language: SupportLang,
    /// ast-grep's compiled rule (with constraints, utils and transform).
    pub core: RuleCore,
    /// What a file must contain to be parsed at all.
    pub requirement: LiteralRequirement,
    /// What a matched node's own text must contain (from its pattern, regex and `has`
    /// descendants); subtrees whose text lacks it are not visited.
    pub node_requirement: LiteralRequirement,
    /// Metavariables the rule can bind (single, multi and transformed), sorted; a given match
    /// may leave some unbound (a branch of `any` that did not match).
    pub metavariables: Vec<String>,
    /// Warnings to show with the result, each starting with the path it concerns.
    pub warnings: Vec<String>,
    /// The node kinds a match can have, sorted; empty when the rule does not restrict the kind.
    pub root_kinds: Vec<String>,
    /// The root kinds of the Go generic-call readings of the rule's patterns (trial173 F1), added
    /// to `core`'s potential kinds; `None` for other rules.
    pub generic_call_kinds: Option<BitSet>,
    /// The variables `transform` defines (a rewrite template reads them as transformed text).
    pub transform_variables: Vec<String>,
    /// The rule as compact JSON, for messages.
    pub source: String,
    /// The same rule for the bounded evaluator ([`crate::structural::evaluate`]): budget,
    /// deadline and stack guard, memoised sub-rules. Every rule that compiles has one (a rule
    /// the evaluator cannot read is refused, never matched by `core` without a budget).
    pub program: Box<RuleProgram>,
}

impl std::fmt::Debug for CompiledRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledRule")
            .field("language", &self.language)
            .field("source", &self.source)
            .field("root_kinds", &self.root_kinds)
            .field("requirement", &self.requirement)
            .finish_non_exhaustive()
    }
}

impl CompiledRule {
    /// One line saying what the rule matches, e.g. `rule → call_expression` or `rule → any kind`.
    pub fn compiled_as(&self) -> String {
        if self.root_kinds.is_empty() {
            "rule → any node kind".to_owned()
        } else {
            format!("rule → {}", self.root_kinds.join(" | "))
        }
    }
}

impl Matcher for CompiledRule {
    fn match_node_with_env<'tree, D: Doc>(&self, node: Node<'tree, D>, env: &mut Cow<MetaVarEnv<'tree, D>>) -> Option<Node<'tree, D>> {
        self.core.match_node_with_env(node, env)
    }

    fn potential_kinds(&self) -> Option<BitSet> {
        let mut kinds = self.core.potential_kinds()?;
        if let Some(extra) = &self.generic_call_kinds {
            kinds.union_with(extra);
        }
        Some(kinds)
    }
}

/// The root kinds of the Go generic-call readings of every pattern string in `rule` (see
/// [`crate::structural::go_generic_calls`]): the evaluator matches those readings too, so a
/// node of their kinds must be tried (a superset is harmless: the evaluator decides). `None`
/// when the rule has none.
fn go_generic_call_kinds(rule: &Value, language: SupportLang) -> Option<BitSet> {
    if language != SupportLang::Go {
        return None;
    }
    let mut kinds = BitSet::new();
    let mut pending = vec![rule];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(text)) = map.get("pattern") {
                    if let Ok(pattern) = Pattern::try_new(text, language) {
                        for reading in crate::structural::go_generic_calls::generic_call_readings(&pattern).readings {
                            if let Some(reading_kinds) = reading.pattern.potential_kinds() {
                                kinds.union_with(&reading_kinds);
                            }
                        }
                    }
                }
                pending.extend(map.values());
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    (!kinds.is_empty()).then_some(kinds)
}

/// Why a rule did not compile: the path of the offending key inside the arguments (`rule`,
/// `rule.inside.kind`, `rule.all[1].pattern`, `constraints.X`, `utils.is-call.kind`), what is
/// wrong, and the next step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleCompileError {
    /// Dotted path with `[i]` for array members, starting at the argument name.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// The next step (may be empty).
    pub hint: String,
}

impl std::fmt::Display for RuleCompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for RuleCompileError {}

impl RuleCompileError {
    fn new(path: &str, message: impl Into<String>, hint: impl Into<String>) -> RuleCompileError {
        RuleCompileError { path: path.to_owned(), message: message.into(), hint: hint.into() }
    }

    /// The error as an `invalid_arguments` [`ToolError`]; `details.rule_path` is the path.
    pub fn to_tool_error(&self) -> ToolError {
        let mut error = ToolError::invalid(self.to_string()).with_details(json!({"rule_path": self.path}));
        if !self.hint.is_empty() {
            error = error.with_hint(self.hint.clone());
        }
        error
    }
}

/// Compiles a rule for `language` (see the module doc).
///
/// # Errors
/// `RuleCompileError` naming the path of the first offending key: an unknown key (with the
/// closest known one), a value of the wrong type, an unknown node kind or field name (with the
/// closest names of the grammar), a pattern that does not parse cleanly, an invalid regex,
/// `nthChild` or `range`, a `matches` id absent from `utils`, a constraint on an unknown or a
/// `$$$` metavariable, and whatever ast-grep itself rejects (cyclic utils, transformations).
pub fn compile_rule(input: RuleInput<'_>, language: SupportLang) -> Result<CompiledRule, RuleCompileError> {
    check_rule_size(input)?;
    // Before ast-grep reads the rule: its `An+B` parser overflows on such a number (found by
    // fuzz/rule_evaluator).
    if let Some(position) =
        [Some(input.rule), input.utils].into_iter().flatten().find_map(crate::structural::evaluate::out_of_range_nth_child_position)
    {
        return Err(RuleCompileError::new(
            "rule",
            format!(
                "nthChild position `{position}` is out of range: its numbers must fit in 32 bits (ast-grep's own parser overflows on it)"
            ),
            "use a position below 2147483647, e.g. `\"2n+1\"` or `3`",
        ));
    }
    let utils = match input.utils {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map),
        Some(other) => {
            return Err(RuleCompileError::new(
                "utils",
                format!("must be an object mapping utility ids to rules; got {}", json_type(other)),
                "e.g. {\"is-call\": {\"kind\": \"call_expression\"}}, then refer to it with {\"matches\": \"is-call\"}",
            ))
        }
    };
    let mut checker = Checker::new(language, utils);
    if let Some(utils) = utils {
        for (id, util) in utils {
            checker.check_util(id, util)?;
        }
    }
    let needs = checker.check_rule(input.rule, "rule", Role::Top)?;
    let constraints = match input.constraints {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map),
        Some(other) => {
            return Err(RuleCompileError::new(
                "constraints",
                format!("must be an object mapping metavariable names to rules; got {}", json_type(other)),
                "e.g. {\"X\": {\"regex\": \"^[a-z]+$\"}} for `$X`",
            ))
        }
    };
    if let Some(constraints) = constraints {
        for (name, constraint) in constraints {
            let path = format!("constraints.{name}");
            if let Some(bare) = name.strip_prefix('$') {
                let bare = bare.trim_start_matches('$');
                return Err(RuleCompileError::new(
                    &path,
                    format!("constraint keys are metavariable names without `$`: write {bare:?}, not {name:?}"),
                    "",
                ));
            }
            checker.check_rule(constraint, &path, Role::Constraint)?;
        }
    }
    if let Some(transform) = input.transform {
        if !matches!(transform, Value::Object(_) | Value::Null) {
            return Err(RuleCompileError::new(
                "transform",
                format!("must be an object mapping new metavariable names to transformations; got {}", json_type(transform)),
                "see ast-grep's transformation reference: substring, replace, convert, rewrite",
            ));
        }
    }

    let mut document = Map::new();
    document.insert("rule".to_owned(), input.rule.clone());
    for (key, value) in [("constraints", input.constraints), ("utils", input.utils), ("transform", input.transform)] {
        if let Some(value) = value.filter(|v| !v.is_null()) {
            document.insert(key.to_owned(), value.clone());
        }
    }
    let serializable: SerializableRuleCore = serde_json::from_value(Value::Object(document)).map_err(|err| {
        RuleCompileError::new("rule", format!("ast-grep cannot read the rule: {err}"), "check the rule's keys and value types")
    })?;
    let core = serializable.get_matcher(DeserializeEnv::new(language)).map_err(map_core_error)?;

    // Constraints: only on single metavariables the rule binds (ast-grep silently ignores a
    // constraint on a `$$$` metavariable).
    let defined: HashSet<&str> = core.defined_vars();
    if let Some(constraints) = constraints {
        for name in constraints.keys() {
            let path = format!("constraints.{name}");
            if checker.multi_metavariables.contains(name.as_str()) {
                return Err(RuleCompileError::new(
                    &path,
                    format!("`$$${name}` is a multi metavariable: ast-grep applies constraints only to single `$` metavariables, so this constraint would never filter anything"),
                    format!("constrain a single metavariable (`${name}`), or use `has`/`inside` sub-rules to restrict the `$$${name}` nodes"),
                ));
            }
            if !defined.contains(name.as_str()) {
                let mut names: Vec<&str> = defined.iter().copied().collect();
                names.sort_unstable();
                return Err(RuleCompileError::new(
                    &path,
                    format!("`${name}` is not a metavariable of the rule"),
                    format!(
                        "constrain one the rule's patterns bind: {}",
                        if names.is_empty() {
                            "none".to_owned()
                        } else {
                            names.iter().map(|n| format!("${n}")).collect::<Vec<_>>().join(", ")
                        }
                    ),
                ));
            }
        }
    }
    let mut metavariables: Vec<String> = defined.iter().map(|v| (*v).to_owned()).collect();
    metavariables.sort();
    let ts = language.get_ts_language();
    let generic_call_kinds = go_generic_call_kinds(input.rule, language);
    let root_kinds: Vec<String> = match core.potential_kinds() {
        Some(mut kinds) => {
            if let Some(extra) = &generic_call_kinds {
                kinds.union_with(extra);
            }
            let mut names: Vec<String> = kinds
                .iter()
                .filter_map(|id| u16::try_from(id).ok())
                .map(|id| if id == u16::MAX { "ERROR".to_owned() } else { ts.node_kind_for_id(id).unwrap_or("?").to_owned() })
                .collect();
            names.sort();
            names.dedup();
            names
        }
        None => {
            checker.warnings.push(
                "rule: nothing at the top level fixes the node kind (no `pattern` or `kind`, or an `any` branch without one): the rule is tried on every node, so a node and the nodes enclosing it can all match; add `kind` to say which node you want"
                    .to_owned(),
            );
            Vec::new()
        }
    };
    let mut transform_variables: Vec<String> = match input.transform {
        Some(Value::Object(map)) => map.keys().cloned().collect(),
        _ => Vec::new(),
    };
    transform_variables.sort();
    let program = RuleProgram::build(input.rule, utils, constraints, language).map(Box::new).and_then(|program| match input.transform {
        Some(transform) if !transform.is_null() => {
            transform_core(input.rule, input.utils, transform, language).map(|core| Box::new(program.with_transform(Some(core))))
        }
        _ => Some(program),
    });
    // ast-grep's `RuleCore` alone cannot be stopped inside a file (no budget, deadline or stack
    // guard), so a rule the bounded evaluator cannot read is refused rather than run by it.
    let Some(program) = program else {
        return Err(RuleCompileError::new(
            "rule",
            "the bounded rule evaluator cannot read this rule, and ast-grep's own evaluator has no work budget, so it is not run",
            "write it with the keys pattern, kind, regex, nthChild, range, all, any, not, matches (a utility id string: parameterized utility calls are not supported), inside, has, precedes, follows",
        ));
    };
    Ok(CompiledRule {
        program,
        language,
        transform_variables,
        core,
        requirement: needs.file,
        node_requirement: needs.node,
        metavariables,
        warnings: checker.warnings,
        root_kinds,
        generic_call_kinds,
        source: serde_json::to_string(input.rule).unwrap_or_default(),
    })
}

/// Longest rule arguments (`rule`, `constraints`, `utils` and `transform` as compact JSON)
/// accepted, in bytes: 64 KiB, four times a pattern's [`crate::structural::compile`] limit;
/// hand-written and generated ast-grep rules are a few KiB.
pub const MAX_RULE_BYTES: usize = 65_536;
/// Deepest nesting of rule objects accepted (`all`/`any`/`not`/relational keys inside one
/// another, within `rule`, each utility and each constraint): 64. ast-grep's documented rules
/// nest under 10; the guard keeps the compile's own recursion (and ast-grep's) far from the
/// stack's end.
pub const MAX_RULE_DEPTH: usize = 64;
/// Most utility rules in `utils`: 256.
pub const MAX_RULE_UTILS: usize = 256;

/// Refuses rule arguments over [`MAX_RULE_BYTES`], [`MAX_RULE_DEPTH`] or [`MAX_RULE_UTILS`]
/// (issue 13 §7), naming the limit and the next step.
fn check_rule_size(input: RuleInput<'_>) -> Result<(), RuleCompileError> {
    let mut bytes = 0usize;
    for (name, value) in
        [("rule", Some(input.rule)), ("constraints", input.constraints), ("utils", input.utils), ("transform", input.transform)]
    {
        let Some(value) = value else { continue };
        bytes += serde_json::to_vec(value).map(|json| json.len()).unwrap_or(0);
        if bytes > MAX_RULE_BYTES {
            return Err(RuleCompileError::new(
                name,
                format!("the rule arguments are over {MAX_RULE_BYTES} bytes of JSON (the limit of one call's rule, constraints, utils and transform together)"),
                "split the search into several calls with smaller rules, or move repeated sub-rules into `utils` and refer to them with `matches`",
            ));
        }
    }
    if let Some(Value::Object(utils)) = input.utils {
        if utils.len() > MAX_RULE_UTILS {
            return Err(RuleCompileError::new(
                "utils",
                format!("{} utility rules; at most {MAX_RULE_UTILS} are accepted", utils.len()),
                "keep only the utilities the rule refers to with `matches`",
            ));
        }
    }
    let mut roots: Vec<(String, &Value)> = vec![("rule".to_owned(), input.rule)];
    for (name, value) in [("constraints", input.constraints), ("utils", input.utils)] {
        if let Some(Value::Object(map)) = value {
            roots.extend(map.iter().map(|(key, value)| (format!("{name}.{key}"), value)));
        }
    }
    for (path, value) in roots {
        if let Some(deep) = too_deep(value, &path, 1) {
            return Err(RuleCompileError::new(
                &deep,
                format!("rule objects nest more than {MAX_RULE_DEPTH} deep here (the limit of `all`/`any`/`not`/`inside`/`has`/`precedes`/`follows`/`stopBy` nesting)"),
                "flatten the rule: a chain of `inside`/`has` with `stopBy: \"end\"` reaches any depth in one step, and a repeated part can be a utility referred to with `matches`",
            ));
        }
    }
    Ok(())
}

/// The path of the first rule object nested deeper than [`MAX_RULE_DEPTH`] under `value`.
fn too_deep(value: &Value, path: &str, depth: usize) -> Option<String> {
    if depth > MAX_RULE_DEPTH {
        return Some(path.to_owned());
    }
    match value {
        Value::Object(map) => map.iter().find_map(|(key, inner)| match key.as_str() {
            "all" | "any" => match inner {
                Value::Array(members) => {
                    members.iter().enumerate().find_map(|(i, member)| too_deep(member, &format!("{path}.{key}[{i}]"), depth + 1))
                }
                _ => None,
            },
            "not" | "inside" | "has" | "precedes" | "follows" | "stopBy" => too_deep(inner, &format!("{path}.{key}"), depth + 1),
            _ => None,
        }),
        _ => None,
    }
}

/// What a (sub-)rule requires of the text: of the whole file, and of the matched node's own
/// range (from its pattern, regex and `has` descendants; `inside`, `precedes` and `follows`
/// relate to nodes outside it).
#[derive(Clone, Default)]
struct Needs {
    file: LiteralRequirement,
    node: LiteralRequirement,
}

impl Needs {
    fn both(requirement: LiteralRequirement) -> Needs {
        Needs { file: requirement.clone(), node: requirement }
    }

    fn file_only(requirement: LiteralRequirement) -> Needs {
        Needs { file: requirement, node: LiteralRequirement::none() }
    }

    fn and(self, other: Needs) -> Needs {
        Needs { file: self.file.and(other.file), node: self.node.and(other.node) }
    }

    fn or(self, other: Needs) -> Needs {
        Needs { file: self.file.or(other.file), node: self.node.or(other.node) }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The `rule` argument itself.
    Top,
    /// A sub-rule of `all`, `any`, `not`, `stopBy`, `nthChild.ofRule`, or a util.
    Nested,
    /// `inside` or `has`: `stopBy` and `field` allowed.
    RelationalWithField,
    /// `precedes` or `follows`: `stopBy` allowed.
    Relational,
    /// A constraint on a metavariable.
    Constraint,
}

struct Checker<'a> {
    language: SupportLang,
    utils: Option<&'a Map<String, Value>>,
    util_requirements: HashMap<String, Needs>,
    visiting: Vec<String>,
    kinds: Option<Vec<String>>,
    fields: Option<Vec<String>>,
    warnings: Vec<String>,
    multi_metavariables: BTreeSet<String>,
}

impl<'a> Checker<'a> {
    fn new(language: SupportLang, utils: Option<&'a Map<String, Value>>) -> Checker<'a> {
        Checker {
            language,
            utils,
            util_requirements: HashMap::new(),
            visiting: Vec::new(),
            kinds: None,
            fields: None,
            warnings: Vec::new(),
            multi_metavariables: BTreeSet::new(),
        }
    }

    fn lang(&self) -> &'static str {
        language_id(self.language)
    }

    fn kinds(&mut self) -> &[String] {
        let language = self.language;
        self.kinds.get_or_insert_with(|| node_kinds(language))
    }

    fn fields(&mut self) -> &[String] {
        let language = self.language;
        self.fields.get_or_insert_with(|| field_names(language))
    }

    fn check_util(&mut self, id: &str, util: &Value) -> Result<Needs, RuleCompileError> {
        if let Some(done) = self.util_requirements.get(id) {
            return Ok(done.clone());
        }
        if self.visiting.iter().any(|v| v == id) {
            // A cycle: ast-grep reports it when it compiles the utils.
            return Ok(Needs::default());
        }
        self.visiting.push(id.to_owned());
        let result = self.check_rule(util, &format!("utils.{id}"), Role::Nested);
        self.visiting.pop();
        let requirement = result?;
        self.util_requirements.insert(id.to_owned(), requirement.clone());
        Ok(requirement)
    }

    fn check_rule(&mut self, value: &Value, path: &str, role: Role) -> Result<Needs, RuleCompileError> {
        let object = match value {
            Value::Object(object) => object,
            Value::String(text) if role == Role::Top => {
                return Err(RuleCompileError::new(
                    path,
                    "a rule is an object, not a string",
                    format!("write {{\"pattern\": {text:?}}}, or pass the string as the `pattern` argument instead of `rule`"),
                ))
            }
            other => {
                return Err(RuleCompileError::new(
                    path,
                    format!("a rule must be an object such as {{\"pattern\": \"…\"}} or {{\"kind\": \"…\"}}; got {}", json_type(other)),
                    "",
                ))
            }
        };
        let mut allowed: Vec<&str> = RULE_KEYS.to_vec();
        match role {
            Role::RelationalWithField => allowed.extend(RELATIONAL_KEYS),
            Role::Relational => allowed.push("stopBy"),
            _ => {}
        }
        for key in object.keys() {
            if !allowed.contains(&key.as_str()) {
                return Err(self.unknown_key(path, key, role, &allowed));
            }
        }
        let has_matcher = object.keys().any(|k| RULE_KEYS.contains(&k.as_str()));
        if !has_matcher {
            return Err(RuleCompileError::new(
                path,
                "the rule has no matcher key: ast-grep needs at least one of pattern, kind, regex, nthChild, range, inside, has, precedes, follows, all, any, not, matches",
                "add e.g. \"kind\" or \"pattern\" to say which nodes it matches",
            ));
        }
        let mut requirement = Needs::default();
        for (key, value) in object {
            let child = format!("{path}.{key}");
            let part = match key.as_str() {
                "pattern" => Needs::both(self.check_pattern(value, &child)?),
                "kind" => {
                    self.check_kind(value, &child)?;
                    Needs::default()
                }
                "regex" => {
                    self.check_atomic_with_ast_grep(
                        key,
                        value,
                        &child,
                        "a Rust regular expression matched against the node's whole text, e.g. \"^test_\"",
                    )?;
                    // The node's text is in the file, so the literals the regex requires are.
                    Needs::both(LiteralRequirement::all_of(value.as_str().map(regex_required_texts).unwrap_or_default()))
                }
                "nthChild" => {
                    if let Some(of_rule) = value.get("ofRule") {
                        self.check_rule(of_rule, &format!("{child}.ofRule"), Role::Nested)?;
                    }
                    if value.as_u64() == Some(0) {
                        return Err(RuleCompileError::new(
                            &child,
                            "positions are 1-based (as CSS :nth-child): 0 matches nothing",
                            "use 1 for the first child",
                        ));
                    }
                    self.check_atomic_with_ast_grep(
                        key,
                        value,
                        &child,
                        "a 1-based position (1), a formula (\"2n+1\"), or {\"position\": …, \"reverse\": true, \"ofRule\": {…}}",
                    )?;
                    Needs::default()
                }
                "range" => {
                    self.check_atomic_with_ast_grep(key, value, &child, "{\"start\": {\"line\": 0, \"column\": 0}, \"end\": {\"line\": 2, \"column\": 1}} with 0-based lines and columns, as in ast-grep")?;
                    Needs::default()
                }
                // The related node is in the same file; only a `has` descendant is inside the
                // matched node's range.
                "has" => {
                    let sub = self.check_rule(value, &child, Role::RelationalWithField)?;
                    Needs { file: sub.file, node: sub.node }
                }
                "inside" => Needs::file_only(self.check_rule(value, &child, Role::RelationalWithField)?.file),
                "precedes" | "follows" => Needs::file_only(self.check_rule(value, &child, Role::Relational)?.file),
                "all" | "any" => {
                    let Value::Array(members) = value else {
                        return Err(RuleCompileError::new(
                            &child,
                            format!("must be an array of rules; got {}", json_type(value)),
                            format!("e.g. \"{key}\": [{{\"kind\": \"…\"}}, {{\"pattern\": \"…\"}}]"),
                        ));
                    };
                    if members.is_empty() {
                        let meaning = if key == "all" { "matches every node" } else { "matches nothing" };
                        return Err(RuleCompileError::new(
                            &child,
                            format!("an empty `{key}` {meaning}"),
                            "list at least one rule, or drop the key",
                        ));
                    }
                    let mut combined: Option<Needs> = None;
                    for (index, member) in members.iter().enumerate() {
                        let member_requirement = self.check_rule(member, &format!("{child}[{index}]"), Role::Nested)?;
                        combined = Some(match combined {
                            None => member_requirement,
                            Some(so_far) if key == "all" => so_far.and(member_requirement),
                            Some(so_far) => so_far.or(member_requirement),
                        });
                    }
                    combined.unwrap_or_default()
                }
                "not" => {
                    self.check_rule(value, &child, Role::Nested)?;
                    Needs::default()
                }
                "matches" => self.check_matches(value, &child)?,
                "stopBy" => {
                    match value {
                        Value::String(s) if s == "neighbor" || s == "end" => {}
                        Value::Object(_) => {
                            self.check_rule(value, &child, Role::Nested)?;
                        }
                        other => {
                            return Err(RuleCompileError::new(
                                &child,
                                format!("must be \"neighbor\", \"end\" or a rule object; got {}", other),
                                "\"neighbor\" (the default) looks only at the direct parent/child/sibling; \"end\" searches all the way; a rule stops the search at the first node it matches",
                            ))
                        }
                    }
                    Needs::default()
                }
                "field" => {
                    self.check_field(value, &child)?;
                    Needs::default()
                }
                _ => Needs::default(),
            };
            requirement = requirement.and(part);
        }
        Ok(requirement)
    }

    fn unknown_key(&self, path: &str, key: &str, role: Role, allowed: &[&str]) -> RuleCompileError {
        let child = format!("{path}.{key}");
        let explained = match key {
            "stopBy" => Some("`stopBy` belongs inside a relational rule (`inside`, `has`, `precedes`, `follows`)".to_owned()),
            "field" => Some(if role == Role::Relational {
                "`field` works only with `inside` and `has`".to_owned()
            } else {
                "`field` belongs inside `inside` or `has`".to_owned()
            }),
            "context" | "selector" | "strictness" => Some(format!(
                "`{key}` belongs inside a pattern object: {{\"pattern\": {{\"context\": \"…\", \"selector\": \"node_kind\"}}}}"
            )),
            "constraints" | "utils" | "transform" => {
                Some(format!("`{key}` is an argument of the tool next to `rule`, not a key inside the rule"))
            }
            "rule" => Some(
                "the `rule` argument is the rule object itself; pass `constraints`, `utils` and `transform` as arguments next to it"
                    .to_owned(),
            ),
            "fix" | "rewrite" => Some("the replacement is ast_edit's `rewrite` argument, next to `rule`".to_owned()),
            "id" | "language" | "message" | "severity" | "note" | "files" | "ignores" | "metadata" | "labels" | "url" => Some(format!(
                "`{key}` is a field of an ast-grep rule file, not of a rule; drop it (the tool takes `language` as its own argument)"
            )),
            "contains" => Some("use `has` for a descendant (with \"stopBy\": \"end\" for any depth)".to_owned()),
            "within" => Some("use `inside` for an ancestor (with \"stopBy\": \"end\" for any depth)".to_owned()),
            "and" => Some("use `all` (a list of rules)".to_owned()),
            "or" => Some("use `any` (a list of rules)".to_owned()),
            "kinds" => Some("use `kind` with one kind, or `any` with one `kind` rule per kind".to_owned()),
            _ => None,
        };
        let known: Vec<String> = allowed.iter().map(|k| (*k).to_owned()).collect();
        let suggestion = did_you_mean(key, &known);
        let message = match explained {
            Some(explained) => format!("unknown key `{key}`: {explained}"),
            None if !suggestion.is_empty() => format!("unknown key `{key}`; {suggestion}"),
            None => format!("unknown key `{key}`"),
        };
        RuleCompileError::new(&child, message, format!("keys here: {}", allowed.join(", ")))
    }

    fn check_pattern(&mut self, value: &Value, path: &str) -> Result<LiteralRequirement, RuleCompileError> {
        let language = self.language;
        match value {
            Value::String(text) => {
                if text.trim().is_empty() {
                    return Err(RuleCompileError::new(path, "the pattern is empty", "write a code fragment such as \"$X.unwrap()\""));
                }
                let table = language_contexts(language);
                for warning in lint_metavariables(text, language, table.dollar_is_identifier_char) {
                    if !warning.contains("ordinary identifier") {
                        return Err(RuleCompileError::new(path, warning, ""));
                    }
                    self.warnings.push(format!("{path}: {warning}"));
                }
                let pattern = Pattern::try_new(text, language).map_err(|err| self.pattern_error(path, text, err))?;
                // Before anything matches with it (the contextual check below does).
                if let Some((message, hint)) = multi_metavariable_nesting_refusal(text, &pattern.node) {
                    return Err(RuleCompileError::new(path, message, hint));
                }
                // ast-grep parses a rule pattern bare. Check that this reading finds the
                // fragment as it sits in code (our contexts' reading): if it does, the pattern
                // means what it says, even through an ERROR node ast-grep tolerates.
                let contextual = compile_pattern(text, language).ok();
                let agrees = contextual.as_ref().is_some_and(|compiled| bare_reading_finds_contextual(&pattern, text, compiled));
                if !agrees {
                    let suggestion = contextual
                        .as_ref()
                        .map(|compiled| context_selector_suggestion(text, language, compiled.context, &compiled.node_kind));
                    if let Some(problem) = bare_parse_problem(text, language) {
                        let hint = match &suggestion {
                            Some(suggestion) => format!("write it as a pattern object that parses: {suggestion}"),
                            None => "fix the fragment; it does not parse in any context either".to_owned(),
                        };
                        return Err(RuleCompileError::new(
                            path,
                            format!("`{text}` does not parse as {} code on its own ({problem}), and the broken reading would not match the fragment as it appears in code", self.lang()),
                            hint,
                        ));
                    }
                    if let (Some(compiled), Some(suggestion)) = (&contextual, &suggestion) {
                        let bare_kind = pattern_root_kind(&pattern, language).unwrap_or_else(|| "a metavariable".to_owned());
                        self.warnings.push(format!(
                            "{path}: `{text}` parses on its own as `{bare_kind}` (what ast-grep matches in a rule), but as a {} it is `{}`; if you meant that, write {suggestion}",
                            compiled.context.as_str().replace('_', " "),
                            compiled.node_kind,
                        ));
                    }
                }
                self.note_multi_metavariables(&pattern.node);
                Ok(LiteralRequirement::all_of(pattern_required_texts(&pattern.node, &pattern.strictness, &language.get_ts_language())))
            }
            Value::Object(object) => {
                for key in object.keys() {
                    if !PATTERN_OBJECT_KEYS.contains(&key.as_str()) {
                        let known: Vec<String> = PATTERN_OBJECT_KEYS.iter().map(|k| (*k).to_owned()).collect();
                        let suggestion = did_you_mean(key, &known);
                        return Err(RuleCompileError::new(
                            &format!("{path}.{key}"),
                            format!("unknown key `{key}` in a pattern object{}", if suggestion.is_empty() { String::new() } else { format!("; {suggestion}") }),
                            "a pattern object has `context` (code containing the fragment), `selector` (the node kind to pick from it) and optionally `strictness`",
                        ));
                    }
                }
                let Some(Value::String(context)) = object.get("context") else {
                    return Err(RuleCompileError::new(
                        &format!("{path}.context"),
                        "a pattern object needs `context`: a string of code that contains the fragment",
                        "e.g. {\"context\": \"class A { $F = $V }\", \"selector\": \"field_definition\"}",
                    ));
                };
                let selector = match object.get("selector") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(selector)) => {
                        self.check_kind_name(selector, &format!("{path}.selector"))?;
                        Some(selector.as_str())
                    }
                    Some(other) => {
                        return Err(RuleCompileError::new(
                            &format!("{path}.selector"),
                            format!("must be a node kind string; got {}", json_type(other)),
                            "",
                        ))
                    }
                };
                let strictness = match object.get("strictness") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) if STRICTNESS.contains(&s.as_str()) => Some(s.as_str()),
                    Some(other) => {
                        return Err(RuleCompileError::new(
                            &format!("{path}.strictness"),
                            format!("must be one of {}; got {other}", STRICTNESS.join(", ")),
                            "",
                        ))
                    }
                };
                let pattern = match selector {
                    Some(selector) => Pattern::contextual(context, selector, language),
                    None => Pattern::try_new(context, language),
                };
                let pattern = match pattern {
                    Ok(pattern) => pattern,
                    Err(PatternError::NoSelectorInContext { .. }) => {
                        let present = kinds_in(context, language);
                        return Err(RuleCompileError::new(
                            &format!("{path}.selector"),
                            format!("the context has no `{}` node", selector.unwrap_or("")),
                            format!("the context parses into these kinds: {}", present.join(", ")),
                        ));
                    }
                    Err(err) => return Err(self.pattern_error(&format!("{path}.context"), context, err)),
                };
                if let Some((message, hint)) = multi_metavariable_nesting_refusal(context, &pattern.node) {
                    return Err(RuleCompileError::new(path, message, hint));
                }
                if let Some(problem) = bare_parse_problem(context, language) {
                    return Err(RuleCompileError::new(
                        &format!("{path}.context"),
                        format!("the context does not parse as {} code ({problem})", self.lang()),
                        "make the context a complete, valid snippet of code around the fragment",
                    ));
                }
                let strictness = match strictness {
                    Some("cst") => MatchStrictness::Cst,
                    Some("ast") => MatchStrictness::Ast,
                    Some("relaxed") => MatchStrictness::Relaxed,
                    Some("signature") => MatchStrictness::Signature,
                    Some("template") => MatchStrictness::Template,
                    _ => MatchStrictness::Smart,
                };
                self.note_multi_metavariables(&pattern.node);
                Ok(LiteralRequirement::all_of(pattern_required_texts(&pattern.node, &strictness, &language.get_ts_language())))
            }
            other => Err(RuleCompileError::new(
                path,
                format!("must be a code string or a pattern object {{\"context\", \"selector\"}}; got {}", json_type(other)),
                "",
            )),
        }
    }

    fn note_multi_metavariables(&mut self, node: &PatternNode) {
        match node {
            PatternNode::MetaVar { meta_var: MetaVariable::MultiCapture(name) } => {
                self.multi_metavariables.insert(name.clone());
            }
            PatternNode::Internal { children, .. } => {
                for child in children {
                    self.note_multi_metavariables(child);
                }
            }
            _ => {}
        }
    }

    fn pattern_error(&self, path: &str, text: &str, err: PatternError) -> RuleCompileError {
        let (message, hint) = match &err {
            PatternError::MultipleNode(_) => (
                format!("`{text}` parses as several sibling nodes; a pattern is one node"),
                "match one of them, or use a pattern object {\"context\": \"…the whole code…\", \"selector\": \"node_kind\"}, or combine several patterns with `all`/`has`/`precedes`".to_owned(),
            ),
            PatternError::NoContent(_) => (format!("`{text}` has no code"), "write a code fragment".to_owned()),
            PatternError::RootMultiMetaVar(_) => (
                format!("`{text}` alone is not a pattern: a `$$$` metavariable matches a run of sibling nodes"),
                "use `$X` for any single node, or put the `$$$` inside a larger fragment".to_owned(),
            ),
            PatternError::Parse(message) => (format!("the parser failed on `{text}`: {message}"), String::new()),
            other => (format!("`{text}`: {}", error_chain(other)), String::new()),
        };
        RuleCompileError::new(path, message, hint)
    }

    fn check_kind(&mut self, value: &Value, path: &str) -> Result<(), RuleCompileError> {
        let Value::String(kind) = value else {
            return Err(RuleCompileError::new(
                path,
                format!("must be a node kind string; got {}", json_type(value)),
                "e.g. \"call_expression\"",
            ));
        };
        let is_selector = kind.chars().any(|c| matches!(c, ' ' | '>' | '+' | '~' | ',' | ':' | '.' | '(' | ')'));
        if !is_selector {
            return self.check_kind_name(kind, path);
        }
        // A kind selector (`call_expression > identifier`, `a:has(b)`): check every type name.
        let mut previous = ' ';
        let mut word = String::new();
        let mut words: Vec<(String, char)> = Vec::new();
        for c in kind.chars().chain(std::iter::once(' ')) {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                if word.is_empty() {
                    words.push((String::new(), previous));
                }
                word.push(c);
            } else {
                if !word.is_empty() {
                    if let Some(last) = words.last_mut() {
                        last.0 = std::mem::take(&mut word);
                    }
                }
                previous = c;
            }
        }
        for (name, before) in words {
            // Pseudo-classes (`:has`, `:nth-child`) and their numeric arguments are not kinds.
            if before == ':' || before == '.' || name.chars().all(|c| c.is_ascii_digit() || c == 'n' || c == '-' || c == '+') {
                continue;
            }
            self.check_kind_name(&name, path)?;
        }
        ast_grep_config::parse_selector(kind, self.language)
            .map(|_| ())
            .map_err(|err| RuleCompileError::new(path, format!("invalid kind selector {kind:?}: {}", error_chain(&err)), "a selector is kinds joined by ` ` (descendant), `>` (child), `+`, `~` (siblings), with `:has(…)`, `:not(…)`, `:is(…)`, `:nth-child(…)`"))
    }

    fn check_kind_name(&mut self, kind: &str, path: &str) -> Result<(), RuleCompileError> {
        let language = self.language;
        if kind == "ERROR" || language.get_ts_language().id_for_node_kind(kind, true) != 0 {
            return Ok(());
        }
        let lang = self.lang();
        let suggestion = did_you_mean(kind, self.kinds());
        let message = if suggestion.is_empty() {
            format!("unknown kind {kind:?} for {lang}")
        } else {
            format!("unknown kind {kind:?} for {lang}; {suggestion}")
        };
        Err(RuleCompileError::new(
            path,
            message,
            "see a snippet's node kinds with ast_grep {\"syntax_tree\": \"ast\", \"code\": \"…\", \"language\": \"…\"}",
        ))
    }

    fn check_field(&mut self, value: &Value, path: &str) -> Result<(), RuleCompileError> {
        let Value::String(field) = value else {
            return Err(RuleCompileError::new(path, format!("must be a field name string; got {}", json_type(value)), ""));
        };
        if self.language.field_to_id(field).is_some() {
            return Ok(());
        }
        let lang = self.lang();
        let suggestion = did_you_mean(field, self.fields());
        Err(RuleCompileError::new(
            path,
            format!("unknown field {field:?} for {lang}{}", if suggestion.is_empty() { String::new() } else { format!("; {suggestion}") }),
            "see the field names of a snippet with ast_grep {\"syntax_tree\": \"ast\", \"code\": \"…\", \"language\": \"…\"} (shown as `field: kind`)",
        ))
    }

    fn check_matches(&mut self, value: &Value, path: &str) -> Result<Needs, RuleCompileError> {
        match value {
            Value::String(id) => {
                let Some(utils) = self.utils else {
                    return Err(RuleCompileError::new(
                        path,
                        format!("`matches` refers to utility rule {id:?}, but no `utils` argument was given"),
                        format!("pass \"utils\": {{{id:?}: {{…rule…}}}} next to `rule`"),
                    ));
                };
                match utils.get(id) {
                    Some(util) => self.check_util(id, util),
                    None => {
                        let known: Vec<String> = utils.keys().cloned().collect();
                        let suggestion = did_you_mean(id, &known);
                        Err(RuleCompileError::new(
                            path,
                            format!(
                                "no utility rule {id:?} in `utils`{}",
                                if suggestion.is_empty() { String::new() } else { format!("; {suggestion}") }
                            ),
                            format!("utils defines: {}", known.join(", ")),
                        ))
                    }
                }
            }
            // A parameterized utility call: ast-grep validates it.
            Value::Object(_) => Ok(Needs::default()),
            other => Err(RuleCompileError::new(path, format!("must be a utility id string; got {}", json_type(other)), "")),
        }
    }

    /// Lets ast-grep compile a rule holding only this atomic key, so that its own error
    /// (regex syntax, nthChild formula, range order) is reported at this path.
    fn check_atomic_with_ast_grep(&self, key: &str, value: &Value, path: &str, expected: &str) -> Result<(), RuleCompileError> {
        let mut single = Map::new();
        single.insert(key.to_owned(), value.clone());
        let serializable: SerializableRule = serde_json::from_value(Value::Object(single))
            .map_err(|err| RuleCompileError::new(path, format!("invalid value {value}: {err}"), format!("expected {expected}")))?;
        DeserializeEnv::new(self.language).deserialize_rule(serializable).map(|_| ()).map_err(|err| {
            RuleCompileError::new(path, format!("invalid value {value}: {}", error_chain(&err)), format!("expected {expected}"))
        })
    }
}

/// Whether ast-grep's bare reading of a rule pattern matches the fragment as our contextual
/// compiler reads it: the fragment is parsed inside the accepted context and the bare pattern
/// must match a node within the fragment's span.
fn bare_reading_finds_contextual(bare: &Pattern, text: &str, compiled: &crate::structural::CompiledPattern) -> bool {
    let language = compiled.language;
    let table = language_contexts(language);
    let Some(context) = table.contexts.iter().find(|c| c.kind == compiled.context) else {
        return false;
    };
    let processed = language.pre_process_pattern(text.trim());
    let terminator = if compiled.with_terminator { table.statement_terminator.unwrap_or("") } else { "" };
    let source = format!("{}{processed}{terminator}{}", context.prefix, context.suffix);
    let span = context.prefix.len()..context.prefix.len() + processed.len() + terminator.len();
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(&source, language) else {
        return false;
    };
    let found = root
        .root()
        .dfs()
        .filter(|node| node.range().start >= span.start && node.range().end <= span.end)
        .any(|node| bare.match_node(node).is_some());
    found
}

/// `{"context": "…", "selector": "kind"}` for `fragment` in its language's `context` wrapper.
fn context_selector_suggestion(fragment: &str, language: SupportLang, context: crate::structural::ContextKind, node_kind: &str) -> String {
    let table = language_contexts(language);
    let wrapper = table.contexts.iter().find(|c| c.kind == context);
    let code = match wrapper {
        Some(wrapper) => format!("{}{}{}", wrapper.prefix, fragment, wrapper.suffix),
        None => fragment.to_owned(),
    };
    let code = code.trim_end().to_owned();
    json!({"pattern": {"context": code, "selector": node_kind}}).to_string()
}

/// The root kind ast-grep's bare compile gave `pattern`, `None` for a metavariable root.
fn pattern_root_kind(pattern: &Pattern, language: SupportLang) -> Option<String> {
    match &pattern.node {
        PatternNode::MetaVar { .. } => None,
        PatternNode::Terminal { kind_id, .. } | PatternNode::Internal { kind_id, .. } => {
            language.get_ts_language().node_kind_for_id(*kind_id).map(str::to_owned)
        }
    }
}

/// The first ERROR node (not a lone metavariable) of `code` parsed bare. MISSING nodes are
/// tolerated as ast-grep tolerates them (a bare Rust `$X.unwrap()` lacks its `;`); when they
/// change what the fragment means, the node kind differs from the contextual compile and the
/// caller warns.
fn bare_parse_problem(code: &str, language: SupportLang) -> Option<String> {
    let processed = language.pre_process_pattern(code);
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(&processed, language).ok()?;
    for node in root.root().dfs() {
        if node.is_error() && language.extract_meta_var(node.text().trim()).is_none() {
            let text: String = node.text().chars().take(40).collect();
            let shown = text.replace(language.expando_char(), "$");
            return Some(format!("a syntax error at line {} near `{}`", node.start_pos().line() + 1, shown.trim()));
        }
    }
    None
}

/// Distinct named kinds in `code`'s parse, in order of first appearance (at most 30).
fn kinds_in(code: &str, language: SupportLang) -> Vec<String> {
    let processed = language.pre_process_pattern(code);
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(&processed, language) else {
        return Vec::new();
    };
    let mut seen: Vec<String> = Vec::new();
    for node in root.root().dfs() {
        if node.is_named() && !seen.iter().any(|k| k == node.kind().as_ref()) {
            seen.push(node.kind().into_owned());
            if seen.len() >= 30 {
                break;
            }
        }
    }
    seen
}

fn map_core_error(error: RuleCoreError) -> RuleCompileError {
    if let RuleCoreError::UndefinedMetaVar(name, section) = &error {
        return RuleCompileError::new(
            &format!("{section}.{name}"),
            format!("`${name}` is not a metavariable the rule binds"),
            "use only metavariables that the rule's patterns bind (single `$X` for constraints)",
        );
    }
    let (path, hint) = match &error {
        RuleCoreError::Yaml(_) => ("rule", ""),
        RuleCoreError::Utils(_) => ("utils", "check the utility rules: ids, cycles between them, and their keys"),
        RuleCoreError::Rule(_) => ("rule", ""),
        RuleCoreError::Constraints(_) => ("constraints", ""),
        RuleCoreError::Transform(_) => ("transform", "see ast-grep's transformation reference: substring, replace, convert, rewrite"),
        RuleCoreError::UndefinedMetaVar(_, section) => (*section, "use only metavariables that the rule's patterns bind"),
    };
    RuleCompileError::new(path, error_chain(&error), hint)
}

/// An error and its sources, joined with ": ".
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let inner_text = inner.to_string();
        if !text.contains(&inner_text) {
            let _ = write!(text, ": {inner_text}");
        }
        source = inner.source();
    }
    text
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(rule: Value, language: SupportLang) -> Result<CompiledRule, RuleCompileError> {
        compile_rule(RuleInput { rule: &rule, constraints: None, utils: None, transform: None }, language)
    }

    #[test]
    fn an_nth_child_position_beyond_32_bits_is_named_not_refused_vaguely() {
        // Found by fuzz/rule_evaluator: ast-grep's parser wraps such a number into another
        // position and compiles the rule; the evaluator reads positions with checked arithmetic.
        let huge = "4444444444444444444444444442n+1";
        for rule in [json!({"kind": "identifier", "nthChild": {"position": huge}}), json!({"kind": "identifier", "nthChild": huge})] {
            let err = compile(rule, SupportLang::Rust).unwrap_err();
            assert!(err.message.contains(&format!("nthChild position `{huge}` is out of range")), "{err:?}");
            assert!(!err.message.contains("cannot read this rule"), "{err:?}");
        }
        assert!(compile(json!({"kind": "identifier", "nthChild": {"position": "2n+1"}}), SupportLang::Rust).is_ok());
        // Found by fuzz/rule_evaluator (session 30): ast-grep's parser reads left to right, so a
        // number that overflows before a refused character panics before the character is seen.
        let overflow_then_letter = "4444444444444444444444444444a = 0;";
        let err = compile(json!({"kind": "identifier", "nthChild": overflow_then_letter}), SupportLang::Rust).unwrap_err();
        assert!(err.message.contains("is out of range"), "{err:?}");
        // A refused character before any overflow is ast-grep's own error, not ours.
        let letter_then_overflow = "4a444444444444444444444444444";
        let err = compile(json!({"kind": "identifier", "nthChild": letter_then_overflow}), SupportLang::Rust).unwrap_err();
        assert!(!err.message.contains("is out of range"), "{err:?}");
    }

    #[test]
    fn unknown_kind_names_path_and_suggests() {
        let err =
            compile(json!({"pattern": "$X.unwrap()", "inside": {"kind": "fn_item", "stopBy": "end"}}), SupportLang::Rust).unwrap_err();
        assert_eq!(err.path, "rule.inside.kind");
        assert!(err.message.contains("unknown kind \"fn_item\" for rust; did you mean `function_item`"), "{err}");
    }

    #[test]
    fn unknown_keys_suggest() {
        let err =
            compile(json!({"kind": "call_expression", "has": {"kind": "identifier", "stop_by": "end"}}), SupportLang::Rust).unwrap_err();
        assert_eq!(err.path, "rule.has.stop_by");
        assert!(err.message.contains("did you mean `stopBy`"), "{err}");
        let err =
            compile(json!({"all": [{"kind": "call_expression"}, {"contains": {"kind": "identifier"}}]}), SupportLang::Rust).unwrap_err();
        assert_eq!(err.path, "rule.all[1].contains");
        let err = compile(json!({"kind": "call_expression", "precedes": {"kind": "identifier", "field": "name"}}), SupportLang::Rust)
            .unwrap_err();
        assert!(err.message.contains("only with `inside` and `has`"), "{err}");
    }

    #[test]
    fn literal_requirement_of_a_rule() {
        let rule = compile(
            json!({"all": [{"pattern": "$X.unwrap()"}, {"inside": {"pattern": "fn $F() { $$$B }", "stopBy": "end"}}], "not": {"pattern": "foo.unwrap()"}}),
            SupportLang::Rust,
        )
        .unwrap();
        assert_eq!(rule.requirement.describe(), "`unwrap`", "{:?}", rule.requirement);
        let rule = compile(json!({"any": [{"pattern": "$X.unwrap()"}, {"pattern": "$X.expect($M)"}]}), SupportLang::Rust).unwrap();
        assert_eq!(rule.requirement.describe(), "`expect` or `unwrap`");
        let rule = compile(json!({"any": [{"pattern": "$X.unwrap()"}, {"kind": "identifier"}]}), SupportLang::Rust).unwrap();
        assert!(rule.requirement.is_empty());
    }

    #[test]
    fn regex_literals_join_the_requirement() {
        let rule =
            compile(json!({"kind": "function_item", "has": {"field": "return_type", "regex": "^Result<"}}), SupportLang::Rust).unwrap();
        assert_eq!(rule.requirement.describe(), "`Result<`");
    }

    #[test]
    fn broken_rule_pattern_is_refused_with_a_context_suggestion() {
        let err = compile(json!({"pattern": "if ($X != null) $X.dispose()"}), SupportLang::Dart).unwrap_err();
        assert_eq!(err.path, "rule.pattern");
        assert!(err.hint.contains("\"selector\":\"if_statement\""), "{err:?}");
    }

    #[test]
    fn constraint_on_multi_metavariable_is_refused() {
        let rule = json!({"pattern": "foo($$$ARGS)"});
        let constraints = json!({"ARGS": {"kind": "identifier"}});
        let err = compile_rule(RuleInput { rule: &rule, constraints: Some(&constraints), utils: None, transform: None }, SupportLang::Rust)
            .unwrap_err();
        assert_eq!(err.path, "constraints.ARGS");
        let constraints = json!({"Y": {"kind": "identifier"}});
        let err = compile_rule(RuleInput { rule: &rule, constraints: Some(&constraints), utils: None, transform: None }, SupportLang::Rust)
            .unwrap_err();
        assert_eq!(err.path, "constraints.Y", "{err}");
    }

    #[test]
    fn matches_needs_utils() {
        let err = compile(json!({"matches": "is-call"}), SupportLang::Rust).unwrap_err();
        assert_eq!(err.path, "rule.matches");
        let rule = json!({"matches": "is-cal"});
        let utils = json!({"is-call": {"pattern": "foo($$$A)"}});
        let err = compile_rule(RuleInput { rule: &rule, constraints: None, utils: Some(&utils), transform: None }, SupportLang::Rust)
            .unwrap_err();
        assert!(err.message.contains("did you mean `is-call`"), "{err}");
        let rule = json!({"matches": "is-call"});
        let ok =
            compile_rule(RuleInput { rule: &rule, constraints: None, utils: Some(&utils), transform: None }, SupportLang::Rust).unwrap();
        assert_eq!(ok.requirement.describe(), "`foo`");
    }
}
