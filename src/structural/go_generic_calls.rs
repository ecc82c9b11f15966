//! The three shapes tree-sitter-go gives a call `F[T](…)`, and a compiled Go pattern's readings in
//! the shapes it was not compiled to (trial173 F1).
//!
//! Go's grammar cannot tell an explicit generic instantiation call from a conversion to a generic
//! type, or a one-type-argument instantiation from an index expression, so tree-sitter-go picks
//! a shape from the text alone:
//!
//! - `call_expression` with a `type_arguments` field: `Equal[map[int]int, map[int]int](nil, nil)`
//!   (several type arguments, or one that is no expression, with several call arguments);
//! - `call_expression` whose function is an `index_expression`: `F[T](a, b)` (one type argument
//!   that reads as an expression, several call arguments);
//! - `type_conversion_expression` of a `generic_type`: `F[int](x)`, and every pattern
//!   `$F[$$$T]($$$A)` (one argument: read as a conversion).
//!
//! A pattern compiles to one shape and so never matched the others: `$F[$$$T]($$$A)` found 0 of
//! golang.org/x/exp's 2 explicit instantiations (`maps_test.go:61`, `:101`), and the ast-grep CLI
//! finds 0 too. [`generic_call_readings`] takes the parts of a call of one shape — the
//! callee, the type-argument list, the call arguments — and builds the other shapes from them
//! where they can hold those parts: the type-arguments call always (a callee that is an
//! expression), the index call when there is one type argument that reads as an expression, the
//! conversion when there is one call argument and the callee reads as a type. A `$$$T` between
//! the brackets then matches a type-argument list of any length; in the index-call reading it
//! binds the one index, and a match counts only when that index reads as a type (a name, a
//! qualified name, an instantiated generic type), so `handlers["a"](1)` and `fns[0](1, 2)` are
//! not matched (review50 H3; `handlers[key](1, 2)` still is: the syntax cannot tell). The pattern
//! tree is built directly (no text is re-parsed), with the grammar's own kind ids.
//!
//! A call nested in a larger pattern (`if !$F[$$$T]($$$A) { … }`) is read the same way: each
//! combination of its calls' shapes is one more reading, up to [`MAX_GENERIC_CALL_READINGS`];
//! the calls past that keep the shape they parsed as and the zero-match hint says so.
//!
//! Limits: a call inside another call's arguments keeps its shape; a concrete type argument
//! other than a name or a qualified name (`map[int]int`) is not turned into an index expression.

use ast_grep_core::matcher::PatternNode;
use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_core::Pattern;
use ast_grep_language::SupportLang;

/// How [`crate::structural::compile::CompiledPattern::compiled_as`] names these readings.
pub const GENERIC_CALL_READING: &str = "read as a call `F[T](…)` (an explicit generic instantiation, or a call of an indexed value)";

/// The kind rule that lists Go's explicit instantiation calls of the first shape (several type
/// arguments), for hints when no pattern reading found any.
pub const GENERIC_CALL_KIND_RULE: &str = r#"{"kind": "call_expression", "has": {"field": "type_arguments", "kind": "type_arguments"}}"#;

/// The Go kind ids the shapes are built from.
struct GoKinds {
    call_expression: u16,
    type_arguments: u16,
    argument_list: u16,
    index_expression: u16,
    type_conversion_expression: u16,
    generic_type: u16,
    identifier: u16,
    type_identifier: u16,
    selector_expression: u16,
    qualified_type: u16,
    field_identifier: u16,
    package_identifier: u16,
    type_elem: u16,
}

impl GoKinds {
    fn load() -> Option<GoKinds> {
        let language = SupportLang::Go.get_ts_language();
        let id = |kind: &str| {
            let id = language.id_for_node_kind(kind, true);
            (id != 0).then_some(id)
        };
        Some(GoKinds {
            call_expression: id("call_expression")?,
            type_arguments: id("type_arguments")?,
            argument_list: id("argument_list")?,
            index_expression: id("index_expression")?,
            type_conversion_expression: id("type_conversion_expression")?,
            generic_type: id("generic_type")?,
            identifier: id("identifier")?,
            type_identifier: id("type_identifier")?,
            selector_expression: id("selector_expression")?,
            qualified_type: id("qualified_type")?,
            field_identifier: id("field_identifier")?,
            package_identifier: id("package_identifier")?,
            type_elem: id("type_elem")?,
        })
    }
}

/// Which of the three shapes a pattern tree is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    CallWithTypeArguments,
    CallOfIndex,
    Conversion,
}

/// The parts of a generic call pattern, shape-independent.
struct GenericCallParts {
    shape: Shape,
    /// The callee as an expression (`Equal`, `maps.Equal`, `$F`), when it reads as one.
    callee_expression: Option<PatternNode>,
    /// The callee as a type (`type_identifier`, `qualified_type`, `$F`), when it reads as one.
    callee_type: Option<PatternNode>,
    /// The `type_arguments` node (`[`, the arguments, `]`).
    type_arguments: PatternNode,
    /// The bracket tokens, to build an index expression.
    brackets: (PatternNode, PatternNode),
    /// The call arguments between the parentheses (commas included).
    arguments: Vec<PatternNode>,
    /// The parenthesis tokens.
    parentheses: (PatternNode, PatternNode),
}

/// Most readings one pattern gets: each call `F[T](…)` in it multiplies them by the number of
/// its shapes (up to 3), so the calls are taken in order while the product stays within this.
/// Matching tries each reading on each node of a candidate kind.
pub const MAX_GENERIC_CALL_READINGS: usize = 8;

/// One reading of a pattern with its calls `F[T](…)` in other shapes.
pub struct GenericCallReading {
    /// The root kind: the pattern's own (`if_statement`), or for a root call
    /// `call_expression` / `type_conversion_expression`.
    pub node_kind: String,
    /// The shapes in words, e.g. `call_expression with type_arguments` (a root call) or
    /// `if_statement holding a call_expression with type_arguments`.
    pub shape: String,
    /// The matcher.
    pub pattern: Pattern,
    /// The metavariables this reading put between the brackets of an index call `F[$T](…)`
    /// (an anonymous `$_`/`$$$` there is given a name, [`HIDDEN_INDEX_METAVARIABLE`] and the
    /// call's number): a match of the reading counts only when each binds a type-shaped node
    /// ([`index_captures_are_type_shaped`]; review50 H3: `$F[$$$T]($$$A)` matched
    /// `handlers["a"](1)` and `fns[0](1, 2)`, and ast_edit rewrote them).
    pub index_metavariables: Vec<String>,
}

/// The name prefix given to an anonymous metavariable (`$_`, `$$$`) between the brackets of a
/// built index-call reading, so that what it binds can be checked (see
/// [`GenericCallReading::index_metavariables`]).
pub const HIDDEN_INDEX_METAVARIABLE: &str = "RUNBOUND_GO_INDEX_";

/// Whether every metavariable of `names` binds, in `env`, only nodes that can be a type argument:
/// a name (`T`), a qualified name (`pkg.T`) or an instantiated generic type of those
/// (`List[T]`, `pkg.Map[K, V]`) — not a literal (`"a"`, `0`), a call, an arithmetic or any other
/// expression, which only an indexed value's call has (review50 H3). An index that is a
/// variable (`handlers[key](x, y)`) still reads as a type name: the syntax cannot tell them apart.
pub fn index_captures_are_type_shaped<D: ast_grep_core::Doc>(env: &ast_grep_core::meta_var::MetaVarEnv<'_, D>, names: &[String]) -> bool {
    names.iter().all(|name| {
        let nodes = match env.get_match(name) {
            Some(node) => vec![node.clone()],
            None => env.get_multiple_matches(name),
        };
        nodes.iter().all(|node| !node.is_named() || is_type_shaped(node))
    })
}

/// Whether a Go expression node reads as a type: an identifier, a `pkg.Name` selector, or an
/// index expression of those whose indices read as types (an instantiated generic type).
fn is_type_shaped<D: ast_grep_core::Doc>(node: &ast_grep_core::Node<'_, D>) -> bool {
    match node.kind().as_ref() {
        "identifier" | "type_identifier" | "qualified_type" | "generic_type" | "parenthesized_type" => true,
        "selector_expression" => node.field("operand").is_some_and(|operand| operand.kind() == "identifier"),
        "index_expression" => {
            node.field("operand").is_some_and(|operand| is_type_shaped(&operand))
                && node.children().filter(|child| child.is_named()).skip(1).all(|index| is_type_shaped(&index))
        }
        _ => false,
    }
}

/// The readings of a compiled Go pattern, and how many of its calls they cover.
pub struct GenericCallReadings {
    /// The readings besides the compiled one (empty when the pattern holds no call `F[T](…)`).
    pub readings: Vec<GenericCallReading>,
    /// Calls `F[T](…)` in the pattern (a call inside another's arguments not counted).
    pub calls: usize,
    /// Of these, the calls read in every shape they can take (the rest, past
    /// [`MAX_GENERIC_CALL_READINGS`], keep the shape they parsed as).
    pub calls_read: usize,
}

/// One call `F[T](…)` of a pattern: where (child indices from the root) and its other shapes.
struct CallSite {
    path: Vec<usize>,
    shapes: Vec<(Shape, PatternNode)>,
    /// The metavariable between the brackets of this call's index-call shape, when that shape
    /// was built here (not the compiled one) with a metavariable there.
    index_metavariable: Option<String>,
}

/// The readings of a compiled Go pattern with each call `F[T](…)` in it (the root or nested,
/// see the module doc) in each shape it can take, every combination but the compiled one.
pub fn generic_call_readings(pattern: &Pattern) -> GenericCallReadings {
    let none = GenericCallReadings { readings: Vec::new(), calls: 0, calls_read: 0 };
    let Some(kinds) = GoKinds::load() else { return none };
    let mut sites = Vec::new();
    collect_sites(&pattern.node, &mut Vec::new(), &kinds, &mut sites);
    let calls = sites.len();
    // Take the calls in order while the combinations stay within the cap.
    let mut combinations = 1usize;
    let mut read = 0;
    for site in &sites {
        let more = combinations * (site.shapes.len() + 1);
        if more - 1 > MAX_GENERIC_CALL_READINGS {
            break;
        }
        combinations = more;
        read += 1;
    }
    let sites = &sites[..read];
    let root_kind = match &pattern.node {
        PatternNode::Internal { kind_id, .. } => {
            SupportLang::Go.get_ts_language().node_kind_for_id(*kind_id).unwrap_or("unknown").to_owned()
        }
        _ => "metavariable".to_owned(),
    };
    let mut readings = Vec::new();
    // Combination 0 is every call in its compiled shape: skipped.
    for combination in 1..combinations {
        let mut node = pattern.node.clone();
        let mut chosen: Vec<Shape> = Vec::new();
        let mut index_metavariables: Vec<String> = Vec::new();
        let mut rest = combination;
        for site in sites {
            let choice = rest % (site.shapes.len() + 1);
            rest /= site.shapes.len() + 1;
            if choice == 0 {
                continue;
            }
            let (shape, replacement) = &site.shapes[choice - 1];
            replace_at(&mut node, &site.path, replacement.clone());
            chosen.push(*shape);
            if *shape == Shape::CallOfIndex {
                index_metavariables.extend(site.index_metavariable.clone());
            }
        }
        // A root call is replaced as a whole: the reading's root is the call's shape.
        let at_root = matches!(sites, [site] if site.path.is_empty());
        let described: Vec<&str> = chosen.iter().map(|shape| shape.describe()).collect();
        let (node_kind, shape) = if at_root {
            (chosen[0].root_kind().to_owned(), described[0].trim_start_matches("a ").to_owned())
        } else {
            (root_kind.clone(), format!("{root_kind} holding {}", described.join(" and ")))
        };
        let mut reading = pattern.clone();
        reading.node = node;
        readings.push(GenericCallReading { node_kind, shape, pattern: reading, index_metavariables });
    }
    GenericCallReadings { readings, calls, calls_read: read }
}

impl Shape {
    fn describe(self) -> &'static str {
        match self {
            Shape::CallWithTypeArguments => "a call_expression with type_arguments",
            Shape::CallOfIndex => "a call_expression of an index_expression",
            Shape::Conversion => "a type_conversion_expression of a generic_type",
        }
    }

    fn root_kind(self) -> &'static str {
        match self {
            Shape::CallWithTypeArguments | Shape::CallOfIndex => "call_expression",
            Shape::Conversion => "type_conversion_expression",
        }
    }
}

/// The calls `F[T](…)` of `node` in pre-order with their other shapes; a call's own arguments
/// are not searched for more (its shapes are built from them as they are).
fn collect_sites(node: &PatternNode, path: &mut Vec<usize>, kinds: &GoKinds, sites: &mut Vec<CallSite>) {
    if let Some(parts) = parts_of(node, kinds) {
        let hidden_name = format!("{HIDDEN_INDEX_METAVARIABLE}{}", sites.len());
        let mut index_metavariable = None;
        let shapes: Vec<(Shape, PatternNode)> = [Shape::CallWithTypeArguments, Shape::CallOfIndex, Shape::Conversion]
            .into_iter()
            .filter(|shape| *shape != parts.shape)
            .filter_map(|shape| Some((shape, build(shape, &parts, kinds, &hidden_name, &mut index_metavariable)?)))
            .collect();
        if !shapes.is_empty() {
            sites.push(CallSite { path: path.clone(), shapes, index_metavariable });
        }
        return;
    }
    if let PatternNode::Internal { children, .. } = node {
        for (index, child) in children.iter().enumerate() {
            path.push(index);
            collect_sites(child, path, kinds, sites);
            path.pop();
        }
    }
}

fn replace_at(node: &mut PatternNode, path: &[usize], replacement: PatternNode) {
    match path.split_first() {
        None => *node = replacement,
        Some((first, rest)) => {
            if let PatternNode::Internal { children, .. } = node {
                if let Some(child) = children.get_mut(*first) {
                    replace_at(child, rest, replacement);
                }
            }
        }
    }
}

/// The zero-match hint's words for a Go pattern that holds a call `F[T](…)` (trial173 F1: "no go
/// code has this shape" was said of 2 explicit instantiations the pattern could not match):
/// which shapes were searched, and the kind rule that lists explicit instantiation calls with
/// several type arguments whatever the pattern; with whether every such call was read in each
/// of its shapes. `None` when the pattern holds no such call.
pub fn zero_match_hint(pattern: &Pattern) -> Option<(bool, String)> {
    let read = generic_call_readings(pattern);
    if read.calls == 0 {
        return None;
    }
    let shapes =
        "call_expression with type_arguments, call_expression of an index_expression, type_conversion_expression of a generic_type";
    let complete = read.calls_read == read.calls;
    let hint = if complete {
        format!(
            "tree-sitter-go gives a call `F[T](…)` one of three shapes ({shapes}) and the pattern was searched with its {} in each {} can take; to list every explicit instantiation call with several type arguments whatever its callee, use the rule {GENERIC_CALL_KIND_RULE}",
            if read.calls == 1 { "call" } else { "calls" },
            if read.calls == 1 { "it" } else { "they" },
        )
    } else {
        format!(
            "the pattern holds {} calls `F[T](…)`; tree-sitter-go gives such a call one of three shapes ({shapes}) by its text alone, and only the first {} {} searched in each (at most {MAX_GENERIC_CALL_READINGS} readings): the others only in the shape they parsed as — split the pattern (one call per pattern, the rest as `inside`/`has` rules), or list every explicit instantiation call with several type arguments with the rule {GENERIC_CALL_KIND_RULE}",
            read.calls,
            read.calls_read,
            if read.calls_read == 1 { "was" } else { "were" },
        )
    };
    Some((complete, hint))
}

fn kind_of(node: &PatternNode) -> Option<u16> {
    match node {
        PatternNode::Internal { kind_id, .. } | PatternNode::Terminal { kind_id, .. } => Some(*kind_id),
        PatternNode::MetaVar { .. } => None,
    }
}

fn is_token(node: &PatternNode, text: &str) -> bool {
    matches!(node, PatternNode::Terminal { text: token, is_named: false, .. } if token == text)
}

/// `(open, inner, close)` of a bracketed children list: the first and last children are the
/// `open`/`close` tokens.
fn bracketed(children: &[PatternNode], open: &str, close: &str) -> Option<(PatternNode, Vec<PatternNode>, PatternNode)> {
    let (first, rest) = children.split_first()?;
    let (last, inner) = rest.split_last()?;
    (is_token(first, open) && is_token(last, close)).then(|| (first.clone(), inner.to_vec(), last.clone()))
}

fn parts_of(root: &PatternNode, kinds: &GoKinds) -> Option<GenericCallParts> {
    let PatternNode::Internal { kind_id, children } = root else { return None };
    if *kind_id == kinds.type_conversion_expression {
        // generic_type(type, type_arguments) "(" operand ")"
        let (generic, rest) = children.split_first()?;
        let PatternNode::Internal { kind_id: generic_kind, children: generic_children } = generic else { return None };
        if *generic_kind != kinds.generic_type {
            return None;
        }
        let [callee_type, type_arguments] = generic_children.as_slice() else { return None };
        let (open_paren, arguments, close_paren) = bracketed(rest, "(", ")")?;
        let brackets = type_argument_brackets(type_arguments, kinds)?;
        return Some(GenericCallParts {
            shape: Shape::Conversion,
            callee_expression: type_to_expression(callee_type, kinds),
            callee_type: Some(callee_type.clone()),
            type_arguments: type_arguments.clone(),
            brackets,
            arguments,
            parentheses: (open_paren, close_paren),
        });
    }
    if *kind_id != kinds.call_expression {
        return None;
    }
    match children.as_slice() {
        [callee, type_arguments, argument_list] if kind_of(type_arguments) == Some(kinds.type_arguments) => {
            let (open_paren, arguments, close_paren) = argument_list_parts(argument_list, kinds)?;
            let brackets = type_argument_brackets(type_arguments, kinds)?;
            Some(GenericCallParts {
                shape: Shape::CallWithTypeArguments,
                callee_expression: Some(callee.clone()),
                callee_type: expression_to_type(callee, kinds),
                type_arguments: type_arguments.clone(),
                brackets,
                arguments,
                parentheses: (open_paren, close_paren),
            })
        }
        [PatternNode::Internal { kind_id: index_kind, children: index_children }, argument_list]
            if *index_kind == kinds.index_expression =>
        {
            let [callee, open_bracket, index, close_bracket] = index_children.as_slice() else { return None };
            if !is_token(open_bracket, "[") || !is_token(close_bracket, "]") {
                return None;
            }
            let type_argument = expression_to_type_element(index, kinds)?;
            let (open_paren, arguments, close_paren) = argument_list_parts(argument_list, kinds)?;
            Some(GenericCallParts {
                shape: Shape::CallOfIndex,
                callee_expression: Some(callee.clone()),
                callee_type: expression_to_type(callee, kinds),
                type_arguments: PatternNode::Internal {
                    kind_id: kinds.type_arguments,
                    children: vec![open_bracket.clone(), type_argument, close_bracket.clone()],
                },
                brackets: (open_bracket.clone(), close_bracket.clone()),
                arguments,
                parentheses: (open_paren, close_paren),
            })
        }
        _ => None,
    }
}

fn type_argument_brackets(type_arguments: &PatternNode, kinds: &GoKinds) -> Option<(PatternNode, PatternNode)> {
    let PatternNode::Internal { kind_id, children } = type_arguments else { return None };
    if *kind_id != kinds.type_arguments {
        return None;
    }
    let (open, _, close) = bracketed(children, "[", "]")?;
    Some((open, close))
}

fn argument_list_parts(argument_list: &PatternNode, kinds: &GoKinds) -> Option<(PatternNode, Vec<PatternNode>, PatternNode)> {
    let PatternNode::Internal { kind_id, children } = argument_list else { return None };
    if *kind_id != kinds.argument_list {
        return None;
    }
    bracketed(children, "(", ")")
}

/// `Equal` → `Equal` (identifier), `maps.Equal` → selector expression, a metavariable as is.
fn type_to_expression(node: &PatternNode, kinds: &GoKinds) -> Option<PatternNode> {
    match node {
        PatternNode::MetaVar { .. } => Some(node.clone()),
        PatternNode::Terminal { text, is_named: true, kind_id } if *kind_id == kinds.type_identifier => {
            Some(PatternNode::Terminal { text: text.clone(), is_named: true, kind_id: kinds.identifier })
        }
        PatternNode::Internal { kind_id, children } if *kind_id == kinds.qualified_type => match children.as_slice() {
            [package, dot, name] => Some(PatternNode::Internal {
                kind_id: kinds.selector_expression,
                children: vec![
                    renamed(package, kinds.package_identifier, kinds.identifier)?,
                    dot.clone(),
                    renamed(name, kinds.type_identifier, kinds.field_identifier)?,
                ],
            }),
            _ => None,
        },
        _ => None,
    }
}

/// The inverse of [`type_to_expression`].
fn expression_to_type(node: &PatternNode, kinds: &GoKinds) -> Option<PatternNode> {
    match node {
        PatternNode::MetaVar { .. } => Some(node.clone()),
        PatternNode::Terminal { text, is_named: true, kind_id } if *kind_id == kinds.identifier => {
            Some(PatternNode::Terminal { text: text.clone(), is_named: true, kind_id: kinds.type_identifier })
        }
        PatternNode::Internal { kind_id, children } if *kind_id == kinds.selector_expression => match children.as_slice() {
            [package, dot, name] => Some(PatternNode::Internal {
                kind_id: kinds.qualified_type,
                children: vec![
                    renamed(package, kinds.identifier, kinds.package_identifier)?,
                    dot.clone(),
                    renamed(name, kinds.field_identifier, kinds.type_identifier)?,
                ],
            }),
            _ => None,
        },
        _ => None,
    }
}

/// A leaf of kind `from` as a leaf of kind `to` with the same text; a metavariable as is.
fn renamed(node: &PatternNode, from: u16, to: u16) -> Option<PatternNode> {
    match node {
        PatternNode::MetaVar { .. } => Some(node.clone()),
        PatternNode::Terminal { text, is_named: true, kind_id } if *kind_id == from => {
            Some(PatternNode::Terminal { text: text.clone(), is_named: true, kind_id: to })
        }
        _ => None,
    }
}

/// An index expression's index as one element of a type-argument list: a metavariable as is, a
/// name or a qualified name inside a `type_elem`.
fn expression_to_type_element(node: &PatternNode, kinds: &GoKinds) -> Option<PatternNode> {
    match node {
        PatternNode::MetaVar { .. } => Some(node.clone()),
        _ => Some(PatternNode::Internal { kind_id: kinds.type_elem, children: vec![expression_to_type(node, kinds)?] }),
    }
}

/// The inverse of [`expression_to_type_element`], for a list of exactly one type argument.
fn single_type_argument_as_expression(type_arguments: &PatternNode, kinds: &GoKinds) -> Option<PatternNode> {
    let PatternNode::Internal { children, .. } = type_arguments else { return None };
    let (_, inner, _) = bracketed(children, "[", "]")?;
    let [only] = inner.as_slice() else { return None };
    match only {
        PatternNode::MetaVar { .. } => Some(only.clone()),
        PatternNode::Internal { kind_id, children } if *kind_id == kinds.type_elem => match children.as_slice() {
            [inner_type] => type_to_expression(inner_type, kinds),
            _ => None,
        },
        _ => None,
    }
}

fn argument_list(parts: &GenericCallParts, kinds: &GoKinds) -> PatternNode {
    let mut children = vec![parts.parentheses.0.clone()];
    children.extend(parts.arguments.iter().cloned());
    children.push(parts.parentheses.1.clone());
    PatternNode::Internal { kind_id: kinds.argument_list, children }
}

/// The pattern tree of `parts` in `shape`. For the index-call shape with a metavariable between
/// the brackets, that metavariable's name is put in `index_metavariable` (an anonymous one is
/// named `hidden_name` first), so that its matches can be kept to type-shaped indices.
fn build(
    shape: Shape,
    parts: &GenericCallParts,
    kinds: &GoKinds,
    hidden_name: &str,
    index_metavariable: &mut Option<String>,
) -> Option<PatternNode> {
    match shape {
        Shape::CallWithTypeArguments => Some(PatternNode::Internal {
            kind_id: kinds.call_expression,
            children: vec![parts.callee_expression.clone()?, parts.type_arguments.clone(), argument_list(parts, kinds)],
        }),
        Shape::CallOfIndex => {
            let mut index = single_type_argument_as_expression(&parts.type_arguments, kinds)?;
            if let PatternNode::MetaVar { meta_var } = &index {
                use ast_grep_core::meta_var::MetaVariable as M;
                let (named, name) = match meta_var {
                    M::Capture(name, _) | M::MultiCapture(name) => (meta_var.clone(), name.clone()),
                    M::Dropped(named) => (M::Capture(hidden_name.to_owned(), *named), hidden_name.to_owned()),
                    M::Multiple => (M::MultiCapture(hidden_name.to_owned()), hidden_name.to_owned()),
                };
                index = PatternNode::MetaVar { meta_var: named };
                *index_metavariable = Some(name);
            }
            let indexed = PatternNode::Internal {
                kind_id: kinds.index_expression,
                children: vec![parts.callee_expression.clone()?, parts.brackets.0.clone(), index, parts.brackets.1.clone()],
            };
            Some(PatternNode::Internal { kind_id: kinds.call_expression, children: vec![indexed, argument_list(parts, kinds)] })
        }
        Shape::Conversion => {
            // One operand (a trailing comma allowed, as the grammar does).
            let operands: Vec<&PatternNode> = parts.arguments.iter().filter(|node| !is_token(node, ",")).collect();
            let [operand] = operands.as_slice() else { return None };
            let generic = PatternNode::Internal {
                kind_id: kinds.generic_type,
                children: vec![parts.callee_type.clone()?, parts.type_arguments.clone()],
            };
            Some(PatternNode::Internal {
                kind_id: kinds.type_conversion_expression,
                children: vec![generic, parts.parentheses.0.clone(), (*operand).clone(), parts.parentheses.1.clone()],
            })
        }
    }
}
