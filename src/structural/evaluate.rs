//! The bounded rule evaluator (issue 13, harden22): evaluates an ast-grep rule object with the
//! same meaning as `ast-grep-config`'s `RuleCore`, but with a work budget, the call's deadline
//! and cancel token checked every [`CHECK_EVERY_STEPS`] steps, a guard on the remaining stack,
//! and memoised sub-rules.
//!
//! The atomic keys `pattern`, `kind`, `regex` and `range` are compiled by ast-grep-config
//! itself, one key at a time, and used as leaf matchers; `nthChild` is evaluated here (its
//! `ofRule` is a sub-rule like any other, under the budget; when it binds nothing, one pass over
//! a parent's children answers for all of them, where ast-grep lists them again for every node
//! tried); the composite (`all`,
//! `any`, `not`, `matches`) and relational (`inside`, `has`, `precedes`, `follows`) keys are
//! evaluated here, in ast-grep's order (atomic keys, then composite, then relational; `all` and
//! `any` members in order; `not` on a throwaway copy of the bindings; a relational rule's
//! candidates in ast-grep's order: `has` pre-order, `inside` from the root down, `follows`
//! nearest first).
//!
//! Memoisation: a sub-rule that binds no metavariable (nothing in it, nor in a utility it
//! reaches, has a `$` metavariable) gives the same answer on a node whatever the bindings so
//! far, so its answer per node is kept for the file's scan: a `matches` of such a utility, and
//! `inside`/`has`/`precedes`/`follows` over such a sub-rule. With it a utility that recurses
//! through `has` is linear in the file instead of exponential in its nesting depth, chained
//! `has`/`inside` with `stopBy: end` are linear instead of cubic, and `follows`/`precedes` with
//! `stopBy: end` are one pass over the siblings. Siblings are read from a per-parent list, not
//! from tree-sitter's `prev_sibling`, which walks the parent's children on every call.
//!
//! Two differences from ast-grep, neither changing which nodes match: relational matches are
//! not recorded as `secondary` labels (the tools show no labels), and the memo caps its size
//! ([`MAX_MEMO_ENTRIES`]; past it answers are computed again).

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

use ast_grep_config::{DeserializeEnv, Rule, SerializableRule};
use ast_grep_core::meta_var::MetaVarEnv;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{Matcher, Node, NodeMatch};
use ast_grep_language::SupportLang;
use serde_json::{Map, Value};

use crate::registry::CancelToken;

/// Default of `StructuralConfig::max_match_steps_per_file`: 200 million steps, a few seconds
/// to a minute of one core; ordinary rules take a few steps per node (a 3 MB file has about a
/// million nodes).
pub const DEFAULT_MAX_MATCH_STEPS_PER_FILE: u64 = 200_000_000;
/// The deadline and cancel token are read once per this many evaluation steps.
pub const CHECK_EVERY_STEPS: u64 = 1024;
/// Most memoised answers kept per file scan (about 64 bytes each); past it answers are
/// computed again, never dropped.
pub const MAX_MEMO_ENTRIES: usize = 4_000_000;
/// Stack kept free below the evaluator: when less than this is left on the matching thread, the
/// file's match is cut with [`CutReason::NestingTooDeep`] rather than overflowing (ast-grep's
/// own leaf matchers and tree-sitter calls run within it).
pub const STACK_RESERVE_BYTES: usize = 512 * 1024;

type SgNode<'tree> = Node<'tree, StrDoc<SupportLang>>;
type Env<'tree> = MetaVarEnv<'tree, StrDoc<SupportLang>>;

/// Why a file's match was cut before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutReason {
    /// The call's deadline passed.
    Deadline,
    /// The host cancelled the call.
    Cancelled,
    /// The file used up its evaluation steps ([`MatchBudget::max_steps_per_file`]).
    StepBudget,
    /// The source nests deeper than the matching thread's stack allows for this rule.
    NestingTooDeep,
}

impl CutReason {
    /// What happened, for a result line.
    pub fn describe(self) -> &'static str {
        match self {
            CutReason::Deadline => "the call's deadline passed during this file's match",
            CutReason::Cancelled => "the host cancelled the call during this file's match",
            CutReason::StepBudget => "the file used up its matching budget (max_match_steps_per_file)",
            CutReason::NestingTooDeep => "the source nests too deeply for this rule's recursion (stack guard)",
        }
    }
}

/// The work one file's match may do: the call's deadline and cancel token, and a step budget.
/// A step is one node tried against one (sub-)rule.
#[derive(Debug, Clone)]
pub struct MatchBudget {
    /// The match stops (cut, [`CutReason::Deadline`]) at this instant.
    pub deadline: Option<Instant>,
    /// The match stops (cut, [`CutReason::Cancelled`]) when this is cancelled.
    pub cancel: Option<CancelToken>,
    /// Most steps one file's match may take (cut, [`CutReason::StepBudget`]).
    pub max_steps_per_file: u64,
}

impl MatchBudget {
    /// No deadline, no cancel token, unlimited steps (tests, benches).
    pub fn unlimited() -> MatchBudget {
        MatchBudget { deadline: None, cancel: None, max_steps_per_file: u64::MAX }
    }
}

/// How a relational rule stops.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Neighbor,
    End,
    Rule(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    Inside,
    Has,
    Precedes,
    Follows,
}

enum RuleNode {
    /// An atomic key compiled by ast-grep-config.
    Leaf(Box<Rule>),
    /// A Go generic call pattern's index-call reading (`F[$T](…)`): its match holds only when
    /// each of these metavariables binds a type-shaped node (review50 H3,
    /// [`crate::structural::go_generic_calls::index_captures_are_type_shaped`]).
    GoIndexReading(Box<Rule>, Vec<String>),
    All(Vec<usize>),
    Any(Vec<usize>),
    Not(usize),
    /// A `matches`: the utility's node (an [`RuleNode::Alias`]), memoised when it binds nothing.
    Matches(usize),
    /// A utility: its rule, whose answer (the node it returns) is the utility's.
    Alias(usize),
    Relational {
        relation: Relation,
        inner: usize,
        stop: Stop,
        field: Option<u16>,
    },
    /// An `nthChild`: the node's 1-based position among its parent's named children (those
    /// that match `of_rule`, when given; counted from the end with `reverse`) fits `position`.
    NthChild {
        position: NthPosition,
        of_rule: Option<usize>,
        reverse: bool,
    },
    /// A utility not built yet (only while building).
    Pending,
}

/// An `nthChild` position, `An+B` (a plain number is `0n+B`), read as ast-grep-config reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NthPosition {
    step_size: i32,
    offset: i32,
}

impl NthPosition {
    /// A number (`3`) or a formula (`"2n+1"`, `"-n+3"`, `"n"`); `None` when it is neither.
    fn parse(value: &Value) -> Option<NthPosition> {
        match value {
            // ast-grep reads a `usize` and casts it `as i32`.
            Value::Number(number) => Some(NthPosition { step_size: 0, offset: number.as_u64()? as i32 }),
            Value::String(formula) => parse_an_plus_b(formula).ok(),
            _ => None,
        }
    }

    /// Whether the 0-based `index` is a position the formula names (ast-grep's arithmetic).
    fn is_matched(self, index: usize) -> bool {
        let Ok(index) = i32::try_from(index + 1) else { return false };
        if self.step_size == 0 {
            index == self.offset
        } else {
            let n = index - self.offset;
            n / self.step_size >= 0 && n % self.step_size == 0
        }
    }
}

/// The first `nthChild` position in `rule` (a rule object, a `utils` map or any JSON holding
/// rules) on which ast-grep's own `An+B` parser overflows 32 bits before it ends or meets a
/// character it refuses (a panic where overflow checks are on, another number where they are
/// off): `"4444444444n+1"`, and `"4444444444a"` too, whose `a` comes after the overflow. `None`
/// when no position does (a malformed one is left to ast-grep's own error). The rule compiler
/// refuses such a rule, naming the position, before ast-grep reads it.
pub(crate) fn out_of_range_nth_child_position(rule: &Value) -> Option<String> {
    match rule {
        Value::Object(map) => map.iter().find_map(|(key, value)| {
            let position = (key == "nthChild").then(|| match value {
                Value::Object(nth) => nth.get("position"),
                simple => Some(simple),
            });
            match position.flatten() {
                Some(Value::String(text)) if parse_an_plus_b(text) == Err(AnPlusBError::Overflow) => Some(text.clone()),
                _ => out_of_range_nth_child_position(value),
            }
        }),
        Value::Array(items) => items.iter().find_map(out_of_range_nth_child_position),
        _ => None,
    }
}

/// Why [`parse_an_plus_b`] read no position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AnPlusBError {
    /// A character or a sequence the grammar refuses, or an empty formula.
    Malformed,
    /// A number beyond 32 bits, met before anything malformed (ast-grep's parser overflows).
    Overflow,
}

/// ast-grep-config's `An+B` grammar (`nth_child.rs`): whitespace ignored; `n` alone, a signed
/// number, a signed coefficient before `n`, then an optional signed offset; read left to right
/// as it reads it, so the first of an overflow and a refused character is the error.
fn parse_an_plus_b(input: &str) -> Result<NthPosition, AnPlusBError> {
    #[derive(Clone, Copy)]
    enum State {
        Initial,
        N,
        Sign(bool),
        Number(bool),
    }
    let (mut step_size, mut sign, mut number, mut state) = (0i32, 1i32, 0i32, State::Initial);
    for c in input.chars().filter(|c| !c.is_whitespace()) {
        let digit = c.to_digit(10).map(|d| d as i32);
        state = match (state, c, digit) {
            (State::Initial, '+' | '-', _) => {
                sign = if c == '+' { 1 } else { -1 };
                State::Sign(false)
            }
            (State::Initial, _, Some(d)) => {
                number = d;
                State::Number(false)
            }
            (State::Initial, 'n' | 'N', _) => {
                step_size = sign;
                State::N
            }
            (State::Sign(has_n), _, Some(d)) => {
                number = d;
                State::Number(has_n)
            }
            (State::Sign(false), 'n' | 'N', _) => {
                step_size = sign;
                State::N
            }
            (State::Number(has_n), _, Some(d)) => {
                number = number.checked_mul(10).and_then(|n| n.checked_add(d)).ok_or(AnPlusBError::Overflow)?;
                State::Number(has_n)
            }
            (State::Number(false), 'n' | 'N', _) => {
                step_size = sign.checked_mul(number).ok_or(AnPlusBError::Overflow)?;
                number = 0;
                State::N
            }
            (State::N, '+' | '-', _) => {
                sign = if c == '+' { 1 } else { -1 };
                number = 0;
                State::Sign(true)
            }
            _ => return Err(AnPlusBError::Malformed),
        };
    }
    match state {
        State::Initial | State::Sign(_) => Err(AnPlusBError::Malformed),
        State::N | State::Number(_) => Ok(NthPosition { step_size, offset: number.checked_mul(sign).ok_or(AnPlusBError::Overflow)? }),
    }
}

/// A rule compiled for the bounded evaluator. Built by [`RuleProgram::build`] from the same
/// JSON that `RuleCore` compiled; `None` from it (a key it does not read, such as a
/// parameterized `matches` object, which ast-grep itself refuses without global utilities)
/// makes the rule compiler refuse the rule.
pub struct RuleProgram {
    nodes: Vec<RuleNode>,
    /// Whether the node binds no metavariable (so its answer per node can be memoised).
    pure: Vec<bool>,
    root: usize,
    constraints: Vec<(String, usize)>,
    /// A `RuleCore` holding only the call's `transform` (its rule matches every node), applied
    /// to a match's bindings as ast-grep applies it after the constraints.
    transform: Option<ast_grep_config::RuleCore>,
}

impl std::fmt::Debug for RuleProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleProgram").field("nodes", &self.nodes.len()).field("root", &self.root).finish_non_exhaustive()
    }
}

struct Builder<'a> {
    env: DeserializeEnv<SupportLang>,
    language: SupportLang,
    utils: Option<&'a Map<String, Value>>,
    util_nodes: HashMap<String, usize>,
    nodes: Vec<RuleNode>,
    /// Whether a leaf binds metavariables (leaves only; composite nodes are derived).
    leaf_binds: Vec<bool>,
}

impl RuleProgram {
    /// Builds the program of `rule` (with `utils` and `constraints` beside it) for `language`;
    /// `None` when the rule holds something this evaluator does not read (a parameterized
    /// `matches` object) or a key fails to compile alone (the caller then refuses the rule).
    pub fn build(
        rule: &Value,
        utils: Option<&Map<String, Value>>,
        constraints: Option<&Map<String, Value>>,
        language: SupportLang,
    ) -> Option<RuleProgram> {
        let mut env = DeserializeEnv::new(language);
        if let Some(utils) = utils {
            let parsed: HashMap<String, SerializableRule> =
                utils.iter().map(|(id, util)| Some((id.clone(), serde_json::from_value(util.clone()).ok()?))).collect::<Option<_>>()?;
            env = env.with_utils(&parsed).ok()?;
        }
        let mut builder = Builder { env, language, utils, util_nodes: HashMap::new(), nodes: Vec::new(), leaf_binds: Vec::new() };
        let root = builder.rule(rule)?;
        let mut constraint_nodes = Vec::new();
        if let Some(constraints) = constraints {
            for (name, constraint) in constraints {
                constraint_nodes.push((name.clone(), builder.rule(constraint)?));
            }
        }
        let pure = purity(&builder.nodes, &builder.leaf_binds);
        Some(RuleProgram { nodes: builder.nodes, pure, root, constraints: constraint_nodes, transform: None })
    }

    /// Sets the `RuleCore` that applies the call's `transform` to a match (see
    /// [`transform_core`]).
    pub fn with_transform(mut self, transform: Option<ast_grep_config::RuleCore>) -> RuleProgram {
        self.transform = transform;
        self
    }
}

/// A `RuleCore` that applies `transform` to whatever bindings it is given: its rule is
/// `{"any": [{"regex": ""}, rule]}`, which matches every node by its first branch (so the
/// original rule is never evaluated by it) while declaring the rule's metavariables, which
/// ast-grep checks the transformations against.
/// `None` when it does not compile (the caller then evaluates with the full `RuleCore`).
pub fn transform_core(rule: &Value, utils: Option<&Value>, transform: &Value, language: SupportLang) -> Option<ast_grep_config::RuleCore> {
    let mut document = Map::new();
    document.insert("rule".to_owned(), serde_json::json!({"any": [{"regex": ""}, rule]}));
    if let Some(utils) = utils.filter(|u| !u.is_null()) {
        document.insert("utils".to_owned(), utils.clone());
    }
    document.insert("transform".to_owned(), transform.clone());
    let serializable: ast_grep_config::SerializableRuleCore = serde_json::from_value(Value::Object(document)).ok()?;
    serializable.get_matcher(DeserializeEnv::new(language)).ok()
}

impl Builder<'_> {
    fn push(&mut self, node: RuleNode, binds: bool) -> usize {
        self.nodes.push(node);
        self.leaf_binds.push(binds);
        self.nodes.len() - 1
    }

    fn rule(&mut self, value: &Value) -> Option<usize> {
        let Value::Object(map) = value else { return None };
        let mut members = Vec::new();
        for key in ["pattern", "kind", "regex", "nthChild", "range"] {
            if let Some(value) = map.get(key) {
                let member = if key == "nthChild" { self.nth_child(value)? } else { self.leaf(key, value)? };
                members.push(member);
            }
        }
        if let Some(Value::Array(all)) = map.get("all") {
            let inner = all.iter().map(|member| self.rule(member)).collect::<Option<Vec<_>>>()?;
            members.push(self.push(RuleNode::All(inner), false));
        }
        if let Some(Value::Array(any)) = map.get("any") {
            let inner = any.iter().map(|member| self.rule(member)).collect::<Option<Vec<_>>>()?;
            members.push(self.push(RuleNode::Any(inner), false));
        }
        if let Some(not) = map.get("not") {
            let inner = self.rule(not)?;
            members.push(self.push(RuleNode::Not(inner), false));
        }
        if let Some(matches) = map.get("matches") {
            let Value::String(id) = matches else { return None };
            let util = self.util(id)?;
            members.push(self.push(RuleNode::Matches(util), false));
        }
        for (key, relation) in
            [("inside", Relation::Inside), ("has", Relation::Has), ("precedes", Relation::Precedes), ("follows", Relation::Follows)]
        {
            if let Some(value) = map.get(key) {
                members.push(self.relational(relation, value)?);
            }
        }
        match members.len() {
            0 => None,
            1 => members.pop(),
            _ => Some(self.push(RuleNode::All(members), false)),
        }
    }

    fn leaf(&mut self, key: &str, value: &Value) -> Option<usize> {
        let mut single = Map::new();
        single.insert(key.to_owned(), value.clone());
        let serializable: SerializableRule = serde_json::from_value(Value::Object(single)).ok()?;
        let rule = self.env.deserialize_rule(serializable).ok()?;
        let binds = !rule.defined_vars().is_empty();
        // A Go pattern holding a call `F[T](…)` matches each shape tree-sitter-go gives such a
        // call, as `ast_grep`'s `pattern` does (trial173 F1, M6): an `any` of its readings.
        let readings = match &rule {
            Rule::Pattern(pattern) if self.language == SupportLang::Go => {
                crate::structural::go_generic_calls::generic_call_readings(pattern).readings
            }
            _ => Vec::new(),
        };
        let first = self.push(RuleNode::Leaf(Box::new(rule)), binds);
        if readings.is_empty() {
            return Some(first);
        }
        let mut members = vec![first];
        for reading in readings {
            let rule = Box::new(Rule::Pattern(reading.pattern));
            let node = if reading.index_metavariables.is_empty() {
                RuleNode::Leaf(rule)
            } else {
                RuleNode::GoIndexReading(rule, reading.index_metavariables)
            };
            members.push(self.push(node, binds));
        }
        Some(self.push(RuleNode::Any(members), false))
    }

    /// `nthChild`: evaluated here (ast-grep lists the parent's children for every node tried,
    /// and evaluates `ofRule` on each of them unbounded and unmemoised).
    fn nth_child(&mut self, value: &Value) -> Option<usize> {
        let (position, of_rule, reverse) = match value {
            Value::Object(map) => {
                let of_rule = match map.get("ofRule") {
                    None | Some(Value::Null) => None,
                    Some(rule) => Some(self.rule(rule)?),
                };
                let reverse = match map.get("reverse") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(reverse)) => *reverse,
                    Some(_) => return None,
                };
                (NthPosition::parse(map.get("position")?)?, of_rule, reverse)
            }
            simple => (NthPosition::parse(simple)?, None, false),
        };
        Some(self.push(RuleNode::NthChild { position, of_rule, reverse }, false))
    }

    fn util(&mut self, id: &str) -> Option<usize> {
        if let Some(index) = self.util_nodes.get(id) {
            return Some(*index);
        }
        let util = self.utils?.get(id)?;
        // A placeholder first, so that a utility reaching itself resolves to it.
        let placeholder = self.push(RuleNode::Pending, false);
        self.util_nodes.insert(id.to_owned(), placeholder);
        let built = self.rule(util)?;
        self.nodes[placeholder] = RuleNode::Alias(built);
        Some(placeholder)
    }

    fn relational(&mut self, relation: Relation, value: &Value) -> Option<usize> {
        let Value::Object(map) = value else { return None };
        let mut rule = map.clone();
        let stop = match rule.remove("stopBy") {
            None => Stop::Neighbor,
            Some(Value::String(s)) if s == "neighbor" => Stop::Neighbor,
            Some(Value::String(s)) if s == "end" => Stop::End,
            Some(stop @ Value::Object(_)) => Stop::Rule(self.rule(&stop)?),
            Some(_) => return None,
        };
        let field = match rule.remove("field") {
            None => None,
            Some(Value::String(name)) => Some(ast_grep_core::Language::field_to_id(&self.language, &name)?),
            Some(_) => return None,
        };
        let inner = self.rule(&Value::Object(rule))?;
        Some(self.push(RuleNode::Relational { relation, inner, stop, field }, false))
    }
}

/// Which nodes bind no metavariable: a leaf without metavariables, and a composite or
/// relational node all of whose reachable members are such (utilities may recurse: computed as
/// "no binding leaf reachable").
fn purity(nodes: &[RuleNode], leaf_binds: &[bool]) -> Vec<bool> {
    let children = |index: usize| -> Vec<usize> {
        match &nodes[index] {
            RuleNode::Leaf(_) | RuleNode::GoIndexReading(..) | RuleNode::Pending => Vec::new(),
            RuleNode::All(members) | RuleNode::Any(members) => members.clone(),
            RuleNode::Not(inner) | RuleNode::Matches(inner) | RuleNode::Alias(inner) => vec![*inner],
            RuleNode::NthChild { of_rule, .. } => of_rule.iter().copied().collect(),
            RuleNode::Relational { inner, stop, .. } => match stop {
                Stop::Rule(stop) => vec![*inner, *stop],
                _ => vec![*inner],
            },
        }
    };
    (0..nodes.len())
        .map(|start| {
            let mut seen = vec![false; nodes.len()];
            let mut stack = vec![start];
            while let Some(index) = stack.pop() {
                if std::mem::replace(&mut seen[index], true) {
                    continue;
                }
                if leaf_binds[index] {
                    return false;
                }
                stack.extend(children(index));
            }
            true
        })
        .collect()
}

/// The children one node's siblings are walked over (its parent's, or its own at the root),
/// listed once.
struct Siblings<'tree> {
    children: Vec<SgNode<'tree>>,
    /// Whether a child is an alias (its kind is not its grammar symbol's): tree-sitter's
    /// `goto_previous_sibling`, which ast-grep's `prev_all` walks with, can land on such a child
    /// without its alias (a TypeScript `let` read as an `identifier` comes back as the `let`
    /// token after an ERROR sibling, found by `fuzz_targets/rule_evaluator.rs`), so a `follows`
    /// walk over these children is ast-grep's own walk, not this list.
    aliased: bool,
}

/// One file's evaluation: the memo, the sibling lists, the step count and the cut.
pub struct FileEvaluation<'p, 'tree> {
    /// `None`: only the budget is kept (a pattern query counts its steps through [`Self::step`]).
    program: Option<&'p RuleProgram>,
    budget: &'p MatchBudget,
    memo: HashMap<(u32, usize), Option<SgNode<'tree>>>,
    siblings: HashMap<usize, Rc<Siblings<'tree>>>,
    /// For each node whose siblings were listed: the id of the node whose children they are,
    /// and the index ast-grep's sibling walk starts at (see [`Self::siblings_of`]).
    positions: HashMap<usize, (usize, Option<usize>)>,
    steps: u64,
    next_check: u64,
    stack_floor: Option<usize>,
    cut: Option<CutReason>,
}

impl<'p, 'tree> FileEvaluation<'p, 'tree> {
    /// A fresh evaluation of `program` within `budget` (`None`: the budget alone, for a
    /// pattern query's [`Self::step`]s).
    pub fn new(program: Option<&'p RuleProgram>, budget: &'p MatchBudget) -> FileEvaluation<'p, 'tree> {
        FileEvaluation {
            program,
            budget,
            memo: HashMap::new(),
            siblings: HashMap::new(),
            positions: HashMap::new(),
            steps: 0,
            next_check: 0,
            stack_floor: stack_floor(),
            cut: None,
        }
    }

    /// Why the evaluation was cut, if it was. Once cut, every further call answers `None`.
    pub fn cut(&self) -> Option<CutReason> {
        self.cut
    }

    /// Counts one step of a match outside the evaluator (a pattern query's node visit); `false`
    /// once the budget is used up.
    pub fn step(&mut self) -> bool {
        if self.cut.is_some() {
            return false;
        }
        self.steps += 1;
        if self.steps > self.budget.max_steps_per_file {
            self.cut = Some(CutReason::StepBudget);
            return false;
        }
        if self.steps >= self.next_check {
            self.next_check = self.steps + CHECK_EVERY_STEPS;
            if self.budget.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
                self.cut = Some(CutReason::Cancelled);
                return false;
            }
            if self.budget.deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                self.cut = Some(CutReason::Deadline);
                return false;
            }
        }
        true
    }

    /// The whole rule (with its constraints) on `node`: the match, or `None`. A match found
    /// after a cut is never returned.
    pub fn match_node(&mut self, node: SgNode<'tree>) -> Option<NodeMatch<'tree, StrDoc<SupportLang>>> {
        let program = self.program?;
        let mut env: Cow<Env<'tree>> = Cow::Owned(MetaVarEnv::new());
        let matched = self.eval(program.root, node, &mut env)?;
        for (name, constraint) in &program.constraints {
            let Some(candidate) = env.get_match(name).cloned() else { continue };
            let constraint = *constraint;
            self.eval(constraint, candidate, &mut env)?;
        }
        if self.cut.is_some() {
            return None;
        }
        if let Some(transform) = &program.transform {
            transform.match_node_with_env(matched.clone(), &mut env)?;
        }
        Some(NodeMatch::new(matched, env.into_owned()))
    }

    fn eval<'e>(&mut self, index: usize, node: SgNode<'tree>, env: &mut Cow<'e, Env<'tree>>) -> Option<SgNode<'tree>> {
        if !self.step() {
            return None;
        }
        if let Some(floor) = self.stack_floor {
            let here = stack_pointer();
            if here < floor {
                self.cut = Some(CutReason::NestingTooDeep);
                return None;
            }
        }
        let program = self.program?;
        match &program.nodes[index] {
            RuleNode::Leaf(rule) => rule.match_node_with_env(node, env),
            RuleNode::GoIndexReading(rule, index_metavariables) => {
                let mut attempt = env.clone();
                let matched = rule.match_node_with_env(node, &mut attempt)?;
                if !crate::structural::go_generic_calls::index_captures_are_type_shaped(attempt.as_ref(), index_metavariables) {
                    return None;
                }
                *env = attempt;
                Some(matched)
            }
            RuleNode::Pending => None,
            RuleNode::Alias(inner) => self.eval(*inner, node, env),
            RuleNode::All(members) => {
                let mut new_env = Cow::Borrowed(env.as_ref());
                for member in members {
                    self.eval(*member, node.clone(), &mut new_env)?;
                }
                let committed = new_env.into_owned();
                *env = Cow::Owned(committed);
                Some(node)
            }
            RuleNode::Any(members) => {
                for member in members {
                    let mut new_env = Cow::Borrowed(env.as_ref());
                    if self.eval(*member, node.clone(), &mut new_env).is_some() {
                        let committed = new_env.into_owned();
                        *env = Cow::Owned(committed);
                        return Some(node);
                    }
                    if self.cut.is_some() {
                        return None;
                    }
                }
                None
            }
            RuleNode::Not(inner) => {
                let mut probe = Cow::Borrowed(env.as_ref());
                let inner_matched = self.eval(*inner, node.clone(), &mut probe).is_some();
                if self.cut.is_some() {
                    return None;
                }
                (!inner_matched).then_some(node)
            }
            RuleNode::Matches(util) => self.memoised(index, node, env, |this, node, env| this.eval(*util, node, env)),
            RuleNode::NthChild { position, of_rule, reverse } => {
                let (position, of_rule, reverse) = (*position, *of_rule, *reverse);
                if program.pure[index] {
                    self.nth_child_pure(index, position, of_rule, reverse, node)
                } else {
                    self.nth_child(position, of_rule, reverse, node, env)
                }
            }
            RuleNode::Relational { relation, inner, stop, field } => {
                let (relation, inner, stop, field) = (*relation, *inner, *stop, *field);
                let pure_inner = program.pure[inner] && matches!(stop, Stop::End) && field.is_none();
                match relation {
                    Relation::Has if pure_inner => self.has_end_pure(index, inner, node),
                    Relation::Inside if pure_inner => self.inside_end_pure(index, inner, node),
                    Relation::Follows | Relation::Precedes if pure_inner && !self.previous_walk_over_aliases(relation, &node) => {
                        self.sibling_end_pure(index, relation, inner, node)
                    }
                    _ => self.memoised(index, node, env, |this, node, env| this.relational(relation, inner, stop, field, node, env)),
                }
            }
        }
    }

    /// `compute` on `node`, through the memo when the rule node at `index` binds nothing.
    fn memoised<'e>(
        &mut self,
        index: usize,
        node: SgNode<'tree>,
        env: &mut Cow<'e, Env<'tree>>,
        compute: impl FnOnce(&mut Self, SgNode<'tree>, &mut Cow<'e, Env<'tree>>) -> Option<SgNode<'tree>>,
    ) -> Option<SgNode<'tree>> {
        if !self.program.is_some_and(|program| program.pure[index]) {
            return compute(self, node, env);
        }
        let key = (index as u32, node.node_id());
        if let Some(known) = self.memo.get(&key) {
            return known.clone();
        }
        let answer = compute(self, node, env);
        self.remember(key, &answer);
        answer
    }

    fn remember(&mut self, key: (u32, usize), answer: &Option<SgNode<'tree>>) {
        // An answer computed while the budget ran out may be wrong: never kept.
        if self.cut.is_none() && self.memo.len() < MAX_MEMO_ENTRIES {
            self.memo.insert(key, answer.clone());
        }
    }

    /// A relational rule exactly as ast-grep evaluates it (no memo of the inner rule).
    fn relational<'e>(
        &mut self,
        relation: Relation,
        inner: usize,
        stop: Stop,
        field: Option<u16>,
        node: SgNode<'tree>,
        env: &mut Cow<'e, Env<'tree>>,
    ) -> Option<SgNode<'tree>> {
        match relation {
            Relation::Has => self.has(inner, stop, field, node, env),
            Relation::Inside => self.inside(inner, stop, field, node, env),
            Relation::Precedes | Relation::Follows => {
                let forward = relation == Relation::Precedes;
                match stop {
                    Stop::Neighbor => {
                        let neighbor = self.sibling(&node, forward)?;
                        self.eval(inner, neighbor, env)
                    }
                    Stop::End | Stop::Rule(_) => {
                        // Over siblings that hold an alias, ast-grep's own walk (see
                        // `Siblings::aliased`), one step per sibling; else the listed siblings.
                        let own_walk = self.previous_walk_over_aliases(relation, &node);
                        let candidates: Box<dyn Iterator<Item = SgNode<'tree>> + '_> = if own_walk {
                            Box::new(node.prev_all())
                        } else {
                            let (siblings, position) = self.siblings_of(&node)?;
                            let order: Box<dyn Iterator<Item = usize>> =
                                if forward { Box::new(position + 1..siblings.children.len()) } else { Box::new((0..position).rev()) };
                            Box::new(order.map(move |at| siblings.children[at].clone()))
                        };
                        for candidate in candidates {
                            if own_walk && !self.step() {
                                return None;
                            }
                            let stops_here = match stop {
                                Stop::Rule(stop_rule) => self.matches_fresh(stop_rule, candidate.clone()),
                                _ => false,
                            };
                            if let Some(found) = self.eval(inner, candidate, env) {
                                return Some(found);
                            }
                            if stops_here || self.cut.is_some() {
                                return None;
                            }
                        }
                        None
                    }
                }
            }
        }
    }

    /// `node` matches `rule` with fresh bindings (ast-grep's `Node::matches`).
    fn matches_fresh(&mut self, rule: usize, node: SgNode<'tree>) -> bool {
        let mut env: Cow<Env<'tree>> = Cow::Owned(MetaVarEnv::new());
        self.eval(rule, node, &mut env).is_some()
    }

    /// The first of `candidates` that matches rule `inner` (bindings into `env`); `None` when
    /// none does or the match was cut (budget, deadline, stack) on the way.
    fn first_match<'e>(
        &mut self,
        inner: usize,
        candidates: impl IntoIterator<Item = SgNode<'tree>>,
        env: &mut Cow<'e, Env<'tree>>,
    ) -> Option<SgNode<'tree>> {
        for candidate in candidates {
            if let Some(found) = self.eval(inner, candidate, env) {
                return Some(found);
            }
            if self.cut.is_some() {
                return None;
            }
        }
        None
    }

    fn has<'e>(
        &mut self,
        inner: usize,
        stop: Stop,
        field: Option<u16>,
        node: SgNode<'tree>,
        env: &mut Cow<'e, Env<'tree>>,
    ) -> Option<SgNode<'tree>> {
        if let Some(field) = field {
            let start = node.child_by_field_id(field)?;
            return match stop {
                Stop::Neighbor => self.eval(inner, start, env),
                Stop::End => self.first_match(inner, start.dfs(), env),
                Stop::Rule(stop_rule) => {
                    if let Some(found) = self.eval(inner, start.clone(), env) {
                        return Some(found);
                    }
                    if self.matches_fresh(stop_rule, start.clone()) {
                        return None;
                    }
                    let children: Vec<_> = start.children().collect();
                    self.first_match(inner, children, env)
                }
            };
        }
        match stop {
            Stop::Neighbor => {
                let children: Vec<_> = node.children().collect();
                self.first_match(inner, children, env)
            }
            Stop::End => self.first_match(inner, node.dfs().skip(1), env),
            Stop::Rule(stop_rule) => {
                let children: Vec<_> = node.children().collect();
                for child in children {
                    if let Some(found) = self.eval(inner, child.clone(), env) {
                        return Some(found);
                    }
                    if self.cut.is_some() {
                        return None;
                    }
                    if !self.matches_fresh(stop_rule, child.clone()) {
                        if let Some(found) = self.has(inner, stop, None, child, env) {
                            return Some(found);
                        }
                    }
                    if self.cut.is_some() {
                        return None;
                    }
                }
                None
            }
        }
    }

    fn inside<'e>(
        &mut self,
        outer: usize,
        stop: Stop,
        field: Option<u16>,
        node: SgNode<'tree>,
        env: &mut Cow<'e, Env<'tree>>,
    ) -> Option<SgNode<'tree>> {
        // ast-grep: `parent` for a neighbor, `ancestors` (from the root down) otherwise; with a
        // field, the candidate's field child must be the node visited before it.
        let mut last_id = node.node_id();
        let mut field_ok = |candidate: &SgNode<'tree>| -> bool {
            let Some(field) = field else { return true };
            let expected = last_id;
            last_id = candidate.node_id();
            candidate.child_by_field_id(field).is_some_and(|child| child.node_id() == expected)
        };
        match stop {
            Stop::Neighbor => {
                let parent = node.parent()?;
                if !field_ok(&parent) {
                    return None;
                }
                self.eval(outer, parent, env)
            }
            Stop::End | Stop::Rule(_) => {
                let ancestors: Vec<_> = node.ancestors().collect();
                for candidate in ancestors {
                    let stops_here = match stop {
                        Stop::Rule(stop_rule) => self.matches_fresh(stop_rule, candidate.clone()),
                        _ => false,
                    };
                    if field_ok(&candidate) {
                        if let Some(found) = self.eval(outer, candidate, env) {
                            return Some(found);
                        }
                    }
                    if stops_here || self.cut.is_some() {
                        return None;
                    }
                }
                None
            }
        }
    }

    /// `has` with `stopBy: end` over a sub-rule that binds nothing: the first descendant in
    /// pre-order that matches, each node's answer memoised, without recursion.
    fn has_end_pure(&mut self, index: usize, inner: usize, node: SgNode<'tree>) -> Option<SgNode<'tree>> {
        let key = |node: &SgNode<'tree>| (index as u32, node.node_id());
        if let Some(known) = self.memo.get(&key(&node)) {
            return known.clone();
        }
        struct Frame<'tree> {
            node: SgNode<'tree>,
            children: Vec<SgNode<'tree>>,
            next: usize,
        }
        let mut stack = vec![Frame { children: node.children().collect(), node, next: 0 }];
        loop {
            let top = stack.last_mut()?;
            if top.next == top.children.len() {
                let done = stack.pop()?;
                self.remember(key(&done.node), &None);
                if stack.is_empty() {
                    return None;
                }
                continue;
            }
            let child = top.children[top.next].clone();
            top.next += 1;
            let mut throwaway: Cow<Env<'tree>> = Cow::Owned(MetaVarEnv::new());
            let mut found = self.eval(inner, child.clone(), &mut throwaway);
            if found.is_none() && self.cut.is_none() {
                match self.memo.get(&key(&child)) {
                    Some(known) => found = known.clone(),
                    None => {
                        stack.push(Frame { children: child.children().collect(), node: child, next: 0 });
                        continue;
                    }
                }
            }
            if self.cut.is_some() {
                return None;
            }
            if let Some(found) = found {
                for frame in &stack {
                    self.remember(key(&frame.node), &Some(found.clone()));
                }
                return Some(found);
            }
        }
    }

    /// `inside` with `stopBy: end` over a sub-rule that binds nothing: the outermost ancestor
    /// that matches (ast-grep walks the ancestors from the root), each node's answer memoised.
    fn inside_end_pure(&mut self, index: usize, outer: usize, node: SgNode<'tree>) -> Option<SgNode<'tree>> {
        let key = |node: &SgNode<'tree>| (index as u32, node.node_id());
        // Up from `node` to the first node whose answer is known (or the root).
        let mut chain = Vec::new();
        let mut current = node;
        let mut known_above: Option<SgNode<'tree>> = None;
        loop {
            if let Some(known) = self.memo.get(&key(&current)) {
                known_above = known.clone();
                break;
            }
            let Some(parent) = current.parent() else {
                // The root: nothing encloses it.
                self.remember(key(&current), &None);
                break;
            };
            chain.push((current, parent.clone()));
            current = parent;
        }
        // Down again: answer(child) = answer(parent) or the parent itself when it matches.
        let mut answer = known_above;
        for (child, parent) in chain.into_iter().rev() {
            if answer.is_none() {
                let mut throwaway: Cow<Env<'tree>> = Cow::Owned(MetaVarEnv::new());
                answer = self.eval(outer, parent, &mut throwaway);
            }
            if self.cut.is_some() {
                return None;
            }
            self.remember(key(&child), &answer);
        }
        answer
    }

    /// `follows` / `precedes` with `stopBy: end` over a sub-rule that binds nothing: one pass
    /// over the node's siblings answers for all of them (the nearest matching sibling before /
    /// after where each one's walk starts, see [`Self::siblings_of`]).
    fn sibling_end_pure(&mut self, index: usize, relation: Relation, inner: usize, node: SgNode<'tree>) -> Option<SgNode<'tree>> {
        let key = (index as u32, node.node_id());
        if let Some(known) = self.memo.get(&key) {
            return known.clone();
        }
        let (siblings, start) = self.siblings_of(&node)?;
        let count = siblings.children.len();
        let order: Vec<usize> = if relation == Relation::Follows { (0..count).collect() } else { (0..count).rev().collect() };
        // nearest_from[at]: the answer of a walk that starts at `at`.
        let mut nearest_from: Vec<Option<SgNode<'tree>>> = vec![None; count];
        let mut nearest: Option<SgNode<'tree>> = None;
        for at in order {
            nearest_from[at] = nearest.clone();
            let candidate = siblings.children[at].clone();
            let mut throwaway: Cow<Env<'tree>> = Cow::Owned(MetaVarEnv::new());
            if let Some(found) = self.eval(inner, candidate, &mut throwaway) {
                nearest = Some(found);
            }
            if self.cut.is_some() {
                return None;
            }
        }
        for child in &siblings.children {
            let child_start = self.positions.get(&child.node_id()).and_then(|(_, start)| *start);
            let answer = child_start.and_then(|at| nearest_from[at].clone());
            self.remember((index as u32, child.node_id()), &answer);
        }
        let answer = nearest_from[start].clone();
        self.remember(key, &answer);
        answer
    }

    /// The named children of `node`'s parent as `nthChild` counts them: each one's answer to
    /// `of_rule` (with a throwaway copy of `env`; ast-grep keeps the node the rule returns,
    /// which a relational `ofRule` makes another node), reversed with `reverse`. `None` when
    /// `node` has no parent or the evaluation was cut.
    fn nth_child_candidates(
        &mut self,
        of_rule: Option<usize>,
        reverse: bool,
        node: &SgNode<'tree>,
        env: &Env<'tree>,
    ) -> Option<Vec<SgNode<'tree>>> {
        let parent = node.parent()?;
        let mut candidates = Vec::new();
        for child in parent.children().filter(|child| child.is_named()) {
            if !self.step() {
                return None;
            }
            match of_rule {
                None => candidates.push(child),
                Some(of_rule) => {
                    let mut probe = Cow::Borrowed(env);
                    if let Some(kept) = self.eval(of_rule, child, &mut probe) {
                        candidates.push(kept);
                    }
                    if self.cut.is_some() {
                        return None;
                    }
                }
            }
        }
        if reverse {
            candidates.reverse();
        }
        Some(candidates)
    }

    /// `nthChild` exactly as ast-grep evaluates it: the node's position among the candidates,
    /// then its own `ofRule` bindings committed to `env`.
    fn nth_child<'e>(
        &mut self,
        position: NthPosition,
        of_rule: Option<usize>,
        reverse: bool,
        node: SgNode<'tree>,
        env: &mut Cow<'e, Env<'tree>>,
    ) -> Option<SgNode<'tree>> {
        let candidates = self.nth_child_candidates(of_rule, reverse, &node, env.as_ref())?;
        let at = candidates.iter().position(|candidate| candidate.node_id() == node.node_id())?;
        if let Some(of_rule) = of_rule {
            // ast-grep evaluates the node's `ofRule` again on the real bindings, whatever it answers.
            let _ = self.eval(of_rule, node.clone(), env);
            if self.cut.is_some() {
                return None;
            }
        }
        position.is_matched(at).then_some(node)
    }

    /// `nthChild` whose `ofRule` (if any) binds nothing: one pass over the parent's children
    /// answers for all of them (memoised), instead of one pass per child.
    fn nth_child_pure(
        &mut self,
        index: usize,
        position: NthPosition,
        of_rule: Option<usize>,
        reverse: bool,
        node: SgNode<'tree>,
    ) -> Option<SgNode<'tree>> {
        let key = (index as u32, node.node_id());
        if let Some(known) = self.memo.get(&key) {
            return known.clone();
        }
        let empty: Env<'tree> = MetaVarEnv::new();
        let candidates = self.nth_child_candidates(of_rule, reverse, &node, &empty)?;
        let mut first_at: HashMap<usize, usize> = HashMap::new();
        for (at, candidate) in candidates.iter().enumerate() {
            first_at.entry(candidate.node_id()).or_insert(at);
        }
        let parent = node.parent()?;
        let mut answer = None;
        for child in parent.children() {
            let matched = first_at.get(&child.node_id()).is_some_and(|at| position.is_matched(*at)).then(|| child.clone());
            if child.node_id() == node.node_id() {
                answer = matched.clone();
            }
            self.remember((index as u32, child.node_id()), &matched);
        }
        answer
    }

    /// The next (`forward`) or previous sibling of `node`, as ast-grep's `next()` / `prev()`
    /// (tree-sitter's `next_sibling` / `prev_sibling`): from the listed siblings for a node
    /// that spans bytes, from tree-sitter itself for an empty (zero-width, e.g. MISSING) node,
    /// whose siblings tree-sitter finds by byte position.
    fn sibling(&mut self, node: &SgNode<'tree>, forward: bool) -> Option<SgNode<'tree>> {
        node.parent()?;
        if node.range().is_empty() {
            return if forward { node.next() } else { node.prev() };
        }
        let (siblings, position) = self.siblings_of(node)?;
        let at = if forward { position.checked_add(1)? } else { position.checked_sub(1)? };
        siblings.children.get(at).cloned()
    }

    /// Whether a `follows` walk from `node` (`relation`) must be ast-grep's own `prev_all`:
    /// the siblings it walks hold an alias (see `Siblings::aliased`).
    fn previous_walk_over_aliases(&mut self, relation: Relation, node: &SgNode<'tree>) -> bool {
        relation == Relation::Follows && self.siblings_of(node).is_some_and(|(siblings, _)| siblings.aliased)
    }

    /// The children ast-grep's `prev_all` / `next_all` walk for `node` and the index the walk
    /// starts at (it goes before / after that index), listed once per parent.
    ///
    /// ast-grep walks the children of `node`'s parent (of `node` itself at the root) from the
    /// first child that ends after `node`'s start byte (tree-sitter's
    /// `goto_first_child_for_byte`): `node`'s own index when it spans bytes; for an empty node
    /// the next child that spans bytes, or nowhere (`None`: no siblings either way) when none
    /// follows. At the root the walk runs over the root's own children. Kept the same here so
    /// that `follows` / `precedes` answer exactly as ast-grep's `RuleCore` on trees with
    /// MISSING nodes (found by `fuzz_targets/rule_evaluator.rs`).
    fn siblings_of(&mut self, node: &SgNode<'tree>) -> Option<(Rc<Siblings<'tree>>, usize)> {
        if let Some(&(owner, start)) = self.positions.get(&node.node_id()) {
            let siblings = self.siblings.get(&owner)?;
            return start.map(|start| (Rc::clone(siblings), start));
        }
        let owner = node.parent().unwrap_or_else(|| node.clone());
        let siblings = match self.siblings.get(&owner.node_id()) {
            Some(siblings) => Rc::clone(siblings),
            None => {
                let children: Vec<SgNode<'tree>> = owner.children().collect();
                for (position, child) in children.iter().enumerate() {
                    let start = if child.range().is_empty() { sibling_walk_start(&owner, child, &children) } else { Some(position) };
                    self.positions.insert(child.node_id(), (owner.node_id(), start));
                }
                let aliased = children.iter().any(|child| child.get_inner_node().kind_id() != child.get_inner_node().grammar_id());
                let siblings = Rc::new(Siblings { children, aliased });
                self.siblings.insert(owner.node_id(), Rc::clone(&siblings));
                siblings
            }
        };
        // The root: its own children, from the first that ends after its start.
        let (_, start) = *self
            .positions
            .entry(node.node_id())
            .or_insert_with(|| (owner.node_id(), sibling_walk_start(&owner, node, &siblings.children)));
        let start = start?;
        Some((siblings, start))
    }
}

/// The index in `children` (the children of `owner`) where ast-grep's sibling walk for `node`
/// starts: the child tree-sitter's cursor lands on with `goto_first_child_for_byte(node's start
/// byte)`; `None` when it lands on none.
fn sibling_walk_start<'tree>(owner: &SgNode<'tree>, node: &SgNode<'tree>, children: &[SgNode<'tree>]) -> Option<usize> {
    let mut cursor = owner.get_inner_node().walk();
    cursor.goto_first_child_for_byte(node.range().start)?;
    let landed = cursor.node();
    children.iter().position(|child| child.get_inner_node() == landed)
}

/// The lowest stack address the evaluator may reach on this thread (the thread's stack start
/// plus [`STACK_RESERVE_BYTES`]), or `None` when the platform does not say.
fn stack_floor() -> Option<usize> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `pthread_getattr_np` fills `attr` for the calling thread; it is destroyed
        // after `pthread_attr_getstack` read the stack's lowest address and size.
        unsafe {
            let mut attr: libc::pthread_attr_t = std::mem::zeroed();
            if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
                return None;
            }
            let mut address: *mut libc::c_void = std::ptr::null_mut();
            let mut size: libc::size_t = 0;
            let status = libc::pthread_attr_getstack(&attr, &mut address, &mut size);
            libc::pthread_attr_destroy(&mut attr);
            if status != 0 || address.is_null() {
                return None;
            }
            Some(address as usize + STACK_RESERVE_BYTES)
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}

/// An address on the current stack frame (the stack grows down on every supported target).
#[inline(never)]
fn stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}
