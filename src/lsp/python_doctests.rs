//! Python doctests read the way `doctest` reads them, for the rename's `grep -w` cross-check
//! (trial148 F1, M4).
//!
//! A docstring's example is its source — a `>>>` line and the `...` lines right after it — and
//! its expected output: the lines after the source up to a blank line or the next `>>>`
//! (doctest's `_EXAMPLE_RE`). The doctests compare both, so a renamed name left in either fails
//! them; the rename's classifier calls only the source code (`>>>` lines), and read an exception
//! class named in an expected traceback as docstring prose (trial148 F1: more-itertools'
//! `UnequalIterablesError` renamed, `zip_equal`'s and `grouper`'s doctests failed with no
//! WARNING). Of a traceback, doctest compares only the exception (the lines from the first one
//! that starts with a word character), and under `# doctest: +IGNORE_EXCEPTION_DETAIL` only the
//! exception class's own name (`_strip_exception_details`: the first line up to its `:`, after
//! the last `.`) — [`DoctestExample::output_compared`].
//!
//! Which occurrences in an example can name the renamed symbol follows from what that symbol is
//! ([`RenamedPythonSymbol`], read from its definition's syntax tree): a parameter only as a
//! keyword argument in a call of its function; a method or attribute only as an attribute
//! (`.name`), and a field of a class with a generated constructor (dataclass, NamedTuple, …)
//! also as that constructor's keyword and in its repr (`Point(x=1)`); a module-level name bare
//! or qualified, not as a call's keyword argument; a function's local never (a docstring's examples run in the module's globals). The rest are
//! other names ([`OtherDoctestName`]): the rename leaves them and counts them in one line
//! (trial148 M4: renaming the parameter `iterable` of `ilen` warned of 111 doctest lines, all
//! other functions' examples' own variables).

use std::collections::HashSet;

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;

/// What a renamed Python symbol is, for which doctest occurrences can name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenamedPythonSymbol {
    /// A parameter: named from outside its function only as a keyword argument of a call of it.
    Parameter {
        /// The function that declares it.
        function: String,
        /// The names a call of the function goes by: the function's, and for `__init__` /
        /// `__new__` its class's.
        callables: Vec<String>,
    },
    /// A class member (a method, a class or instance attribute, a nested class): named as an
    /// attribute, `obj.name`.
    Member {
        /// When the member is a field of a class whose generated constructor takes its fields as
        /// keyword arguments (a dataclass, an attrs class, a `NamedTuple`, a `TypedDict`, a
        /// pydantic model, a msgspec `Struct`): that class's name, since `Point(x=1)` names the
        /// field `x` and its repr `Point(x=1)` shows it (review44 BUG 3). `None` otherwise.
        constructor_class: Option<String>,
    },
    /// A module-level name (function, class, variable): named bare or qualified by its module.
    ModuleLevel,
    /// A function's local variable: not visible in a docstring's examples.
    Local,
}

/// Why a doctest occurrence of the renamed word is not the renamed symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OtherDoctestName {
    /// A part of an expected traceback that doctest does not compare (its stack, or the
    /// exception's module path and detail under `IGNORE_EXCEPTION_DETAIL`).
    NotCompared,
    /// The renamed symbol is a function's local.
    Local,
    /// The renamed parameter's word outside a keyword argument of a call of its function (a
    /// variable of the examples, another function's keyword), or in the output of an example that
    /// does not call the function.
    NotAKeywordOfTheFunction,
    /// The renamed member's word not as an attribute (nor, for a field of a generated
    /// constructor, as its class's keyword or in its repr): a same-named function or variable.
    NotAnAttribute,
    /// The renamed member's word as an attribute of a module the examples import (`mi.prepend`):
    /// that module's function.
    AttributeOfAnImportedModule,
    /// The renamed module-level name's word as an attribute of a value the examples assign
    /// (`p.prepend` after `p = peekable(…)`): a member of that value.
    AttributeOfAnAssignedValue,
    /// The renamed module-level name's word as a call's keyword argument: another function's
    /// parameter.
    KeywordArgument,
}

impl OtherDoctestName {
    /// What the reason says, for the rename's one line (`name`: the old name; `symbol`: what was
    /// renamed).
    pub fn describe(self, name: &str, symbol: Option<&RenamedPythonSymbol>) -> String {
        match self {
            OtherDoctestName::NotCompared => "in the part of an expected traceback doctest does not compare".to_owned(),
            OtherDoctestName::Local => "the renamed local is not visible in a docstring's examples".to_owned(),
            OtherDoctestName::NotAKeywordOfTheFunction => {
                let function = match symbol {
                    Some(RenamedPythonSymbol::Parameter { function, .. }) => format!("`{function}`"),
                    _ => "its function".to_owned(),
                };
                format!("not a keyword argument `{name}=` in a call of {function} (the examples' own variables, other functions' keywords)")
            }
            OtherDoctestName::NotAnAttribute => {
                format!("not an attribute `.{name}` (a same-named function or variable of the examples)")
            }
            OtherDoctestName::AttributeOfAnImportedModule => format!("`.{name}` of a module the examples import (that module's name)"),
            OtherDoctestName::AttributeOfAnAssignedValue => {
                format!("`.{name}` of a value the examples assign (a member of that value, not the module's name)")
            }
            OtherDoctestName::KeywordArgument => format!("a keyword argument `{name}=` (another function's parameter)"),
        }
    }
}

/// What a doctest occurrence of the renamed word is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DoctestOccurrence {
    /// In an example's source, where it can name the renamed symbol.
    Source,
    /// In an example's expected output that doctest compares, where it can name the renamed
    /// symbol: no server edits it.
    ExpectedOutput,
    /// Not the renamed symbol.
    Other(OtherDoctestName),
}

/// One doctest example of a docstring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoctestExample {
    /// Its source lines: (0-based line, byte where the code starts after the prompt).
    pub source: Vec<(usize, usize)>,
    /// Its expected output's lines (0-based).
    pub want: Vec<usize>,
    /// The prompt's indentation (bytes).
    pub indent: usize,
    /// The source sets `# doctest: +IGNORE_EXCEPTION_DETAIL`.
    pub ignore_exception_detail: bool,
    /// When the expected output is a traceback (a header, then a line that starts with a word
    /// character): the line where its exception starts.
    pub exception_line: Option<usize>,
}

impl DoctestExample {
    /// Whether doctest compares the occurrence at `byte_start..byte_start + word_len` of
    /// expected-output line `line` (`text`: that line).
    pub fn output_compared(&self, line: usize, text: &str, byte_start: usize, word_len: usize) -> bool {
        let Some(exception_line) = self.exception_line else { return true };
        if line < exception_line {
            // The header and the stack.
            return false;
        }
        if !self.ignore_exception_detail {
            return true;
        }
        if line != exception_line {
            return false;
        }
        // `_strip_exception_details`: the first line up to its first `:`, after its last `.`.
        let start_of_message = self.indent.min(text.len());
        let message = &text[start_of_message..];
        let end = message.find(':').unwrap_or(message.len());
        let start = message[..end].rfind('.').map_or(0, |dot| dot + 1);
        let occurrence = byte_start.saturating_sub(start_of_message);
        byte_start >= start_of_message && start <= occurrence && occurrence + word_len <= end
    }
}

/// The doctest examples of a Python file's strings.
#[derive(Debug, Clone)]
pub struct PythonDoctests {
    text: String,
    /// Each line's byte range in `text` (without its line break).
    lines: Vec<std::ops::Range<usize>>,
    /// Per string that holds examples, its examples.
    docstrings: Vec<Vec<DoctestExample>>,
    /// The file parsed without a syntax error: only its docstrings (and `__test__` values) were
    /// read, so a `>>>` line outside them is no example.
    parsed_cleanly: bool,
}

/// Which part of an example a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExamplePart {
    /// A `>>>` or `...` line of its source.
    Source,
    /// A line of its expected output.
    ExpectedOutput,
}

impl PythonDoctests {
    /// Reads the examples of `text` (a Python file): of its docstrings and `__test__` values that
    /// hold a `>>>` prompt, or of every string with a prompt when the file has a syntax error
    /// ([`PythonDoctests::knows_every_docstring`]).
    pub fn parse(text: String) -> PythonDoctests {
        let (docstrings, parsed_cleanly) = docstring_examples(&text);
        let mut lines = Vec::new();
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let content = line.strip_suffix('\n').unwrap_or(line);
            let content = content.strip_suffix('\r').unwrap_or(content);
            lines.push(start..start + content.len());
            start += line.len();
        }
        PythonDoctests { text, lines, docstrings, parsed_cleanly }
    }

    /// Whether a `>>>` line that is part of no example is known to be no doctest: the file parsed
    /// cleanly, so only docstrings and `__test__` values were read (a prompt in another string is
    /// plain text).
    pub fn knows_every_docstring(&self) -> bool {
        self.parsed_cleanly
    }

    /// 0-based line `line` of the file, without its line break.
    fn line(&self, line: usize) -> &str {
        self.lines.get(line).and_then(|range| self.text.get(range.clone())).unwrap_or("")
    }

    /// The examples found, per string.
    #[cfg(test)]
    pub fn docstrings(&self) -> &[Vec<DoctestExample>] {
        &self.docstrings
    }

    /// The example that holds 0-based `line` and which part of it the line is, with the index of
    /// its string.
    pub fn part_of(&self, line: usize) -> Option<(usize, &DoctestExample, ExamplePart)> {
        self.docstrings.iter().enumerate().find_map(|(docstring, examples)| {
            examples.iter().find_map(|example| {
                if example.source.iter().any(|(source_line, _)| *source_line == line) {
                    Some((docstring, example, ExamplePart::Source))
                } else if example.want.contains(&line) {
                    Some((docstring, example, ExamplePart::ExpectedOutput))
                } else {
                    None
                }
            })
        })
    }

    /// What the occurrence of a word `word_len` bytes long at byte `byte_start` of 0-based `line`
    /// is, when the line is part of an example; `symbol` (what was renamed; `None` when unknown:
    /// every occurrence counts) decides which can name it.
    pub fn occurrence(
        &self,
        line: usize,
        byte_start: usize,
        word_len: usize,
        symbol: Option<&RenamedPythonSymbol>,
    ) -> Option<DoctestOccurrence> {
        let (docstring, example, part) = self.part_of(line)?;
        let line_text = self.line(line);
        Some(match part {
            ExamplePart::ExpectedOutput => {
                if !example.output_compared(line, line_text, byte_start, word_len) {
                    return Some(DoctestOccurrence::Other(OtherDoctestName::NotCompared));
                }
                match symbol {
                    None | Some(RenamedPythonSymbol::ModuleLevel) => DoctestOccurrence::ExpectedOutput,
                    Some(RenamedPythonSymbol::Local) => DoctestOccurrence::Other(OtherDoctestName::Local),
                    // A member shows in output qualified (`<bound method peekable.peek …>`), a
                    // field of a generated constructor in its class's repr (`Point(x=1, y=2)`).
                    Some(RenamedPythonSymbol::Member { constructor_class }) => {
                        let qualified = line_text.get(..byte_start).is_some_and(|before| before.ends_with('.'));
                        let in_repr = constructor_class.as_deref().is_some_and(|class| {
                            line_text.get(byte_start + word_len..).is_some_and(|after| after.starts_with('='))
                                && line_text
                                    .match_indices(&format!("{class}("))
                                    .any(|(at, _)| !line_text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
                        });
                        if qualified || in_repr {
                            DoctestOccurrence::ExpectedOutput
                        } else {
                            DoctestOccurrence::Other(OtherDoctestName::NotAnAttribute)
                        }
                    }
                    // A parameter shows in the output of a call of its function (a TypeError
                    // naming it, a signature).
                    Some(RenamedPythonSymbol::Parameter { callables, .. }) => {
                        let code = ExampleCode::of(self, example);
                        if code.calls_any(callables) {
                            DoctestOccurrence::ExpectedOutput
                        } else {
                            DoctestOccurrence::Other(OtherDoctestName::NotAKeywordOfTheFunction)
                        }
                    }
                }
            }
            ExamplePart::Source => match symbol {
                None => DoctestOccurrence::Source,
                Some(RenamedPythonSymbol::Local) => DoctestOccurrence::Other(OtherDoctestName::Local),
                Some(symbol) => {
                    let code = ExampleCode::of(self, example);
                    match code.offset_of(line, byte_start) {
                        Some(offset) => code.source_occurrence(offset, word_len, symbol, || self.names_bound_in(docstring)),
                        None => DoctestOccurrence::Source,
                    }
                }
            },
        })
    }

    /// The names the examples of string `docstring` assign (`p = …`, `for p in …`, `with … as
    /// p`) and the modules they import (`import m`, `import a.b as m`).
    fn names_bound_in(&self, docstring: usize) -> BoundNames {
        let mut bound = BoundNames::default();
        for example in self.docstrings.get(docstring).into_iter().flatten() {
            let code = ExampleCode::of(self, example);
            code.collect_bound_names(&mut bound);
        }
        bound
    }
}

/// The names an example's code binds.
#[derive(Debug, Default)]
struct BoundNames {
    assigned: HashSet<String>,
    imported_modules: HashSet<String>,
}

/// An example's source code, its prompts stripped, lines joined.
struct ExampleCode {
    code: String,
    /// Per source line: (0-based line, byte where its code starts in the line, offset in `code`).
    lines: Vec<(usize, usize, usize)>,
}

impl ExampleCode {
    fn of(doctests: &PythonDoctests, example: &DoctestExample) -> ExampleCode {
        let mut code = String::new();
        let mut lines = Vec::new();
        for (line, code_start) in &example.source {
            let line_text = doctests.line(*line);
            lines.push((*line, *code_start, code.len()));
            code.push_str(line_text.get(*code_start..).unwrap_or(""));
            code.push('\n');
        }
        ExampleCode { code, lines }
    }

    fn offset_of(&self, line: usize, byte_start: usize) -> Option<usize> {
        let (_, code_start, offset) = self.lines.iter().find(|(source_line, _, _)| *source_line == line)?;
        Some(offset + byte_start.checked_sub(*code_start)?)
    }

    fn tree(&self) -> Option<AstGrep<StrDoc<SupportLang>>> {
        AstGrep::<StrDoc<SupportLang>>::try_new(self.code.as_str(), SupportLang::Python).ok()
    }

    fn text_of(&self, node: tree_sitter::Node<'_>) -> &str {
        self.code.get(node.start_byte()..node.end_byte()).unwrap_or("")
    }

    /// Whether the code calls a function by one of `names` (`name(…)` or `x.name(…)`).
    fn calls_any(&self, names: &[String]) -> bool {
        let Some(tree) = self.tree() else { return true };
        let mut stack = vec![tree.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == "call" && node.child_by_field_name("function").is_some_and(|function| self.callee_is(function, names)) {
                return true;
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
        false
    }

    /// Whether a call's `function` node names one of `names`.
    fn callee_is(&self, function: tree_sitter::Node<'_>, names: &[String]) -> bool {
        let name = match function.kind() {
            "identifier" => Some(function),
            "attribute" => function.child_by_field_name("attribute"),
            _ => None,
        };
        name.is_some_and(|name| names.iter().any(|wanted| wanted == self.text_of(name)))
    }

    /// What the identifier at `offset` is for `symbol`; not an identifier (the parse lost it):
    /// [`DoctestOccurrence::Source`].
    fn source_occurrence(
        &self,
        offset: usize,
        word_len: usize,
        symbol: &RenamedPythonSymbol,
        bound: impl FnOnce() -> BoundNames,
    ) -> DoctestOccurrence {
        let Some(tree) = self.tree() else { return DoctestOccurrence::Source };
        let top = tree.root().get_inner_node();
        let Some(node) = top.descendant_for_byte_range(offset, offset + word_len) else { return DoctestOccurrence::Source };
        if node.kind() != "identifier" {
            return DoctestOccurrence::Source;
        }
        let parent = node.parent();
        let keyword_of_call = parent.filter(|parent| {
            parent.kind() == "keyword_argument" && parent.child_by_field_name("name").is_some_and(|name| name.id() == node.id())
        });
        let attribute_of = parent
            .filter(|parent| {
                parent.kind() == "attribute" && parent.child_by_field_name("attribute").is_some_and(|name| name.id() == node.id())
            })
            .and_then(|attribute| attribute.child_by_field_name("object"));
        // The occurrence is a keyword argument (`name=`) of a call of a function named one of
        // `names` (`f(name=…)`, `x.f(name=…)`).
        let keyword_of_a_call_of = |names: &[String]| {
            keyword_of_call
                .and_then(|keyword| keyword.parent())
                .filter(|arguments| arguments.kind() == "argument_list")
                .and_then(|arguments| arguments.parent())
                .filter(|call| call.kind() == "call")
                .and_then(|call| call.child_by_field_name("function"))
                .is_some_and(|function| self.callee_is(function, names))
        };
        match symbol {
            RenamedPythonSymbol::Local => DoctestOccurrence::Other(OtherDoctestName::Local),
            RenamedPythonSymbol::Parameter { callables, .. } => {
                if keyword_of_a_call_of(callables) {
                    DoctestOccurrence::Source
                } else {
                    DoctestOccurrence::Other(OtherDoctestName::NotAKeywordOfTheFunction)
                }
            }
            RenamedPythonSymbol::Member { constructor_class } => {
                // `Point(x=1)`: a keyword of the class's generated constructor.
                if constructor_class.as_ref().is_some_and(|class| keyword_of_a_call_of(std::slice::from_ref(class))) {
                    return DoctestOccurrence::Source;
                }
                if let Some(object) = attribute_of {
                    if object.kind() == "identifier" && bound().imported_modules.contains(self.text_of(object)) {
                        return DoctestOccurrence::Other(OtherDoctestName::AttributeOfAnImportedModule);
                    }
                    return DoctestOccurrence::Source;
                }
                // An example's own `def NAME` (in a subclass: an override).
                let defined = parent.is_some_and(|parent| {
                    parent.kind() == "function_definition" && parent.child_by_field_name("name").is_some_and(|name| name.id() == node.id())
                });
                if defined {
                    DoctestOccurrence::Source
                } else {
                    DoctestOccurrence::Other(OtherDoctestName::NotAnAttribute)
                }
            }
            RenamedPythonSymbol::ModuleLevel => {
                if keyword_of_call.is_some() {
                    return DoctestOccurrence::Other(OtherDoctestName::KeywordArgument);
                }
                if let Some(object) = attribute_of.filter(|object| object.kind() == "identifier") {
                    let bound = bound();
                    let object = self.text_of(object);
                    if bound.assigned.contains(object) && !bound.imported_modules.contains(object) {
                        return DoctestOccurrence::Other(OtherDoctestName::AttributeOfAnAssignedValue);
                    }
                }
                DoctestOccurrence::Source
            }
        }
    }

    fn collect_bound_names(&self, bound: &mut BoundNames) {
        let Some(tree) = self.tree() else { return };
        let mut stack = vec![tree.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
                    if let Some(left) = node.child_by_field_name("left") {
                        self.identifiers_into(left, &mut bound.assigned);
                    }
                }
                "as_pattern_target" | "named_expression" => {
                    if let Some(name) = node.child_by_field_name("name").or_else(|| node.named_child(0)) {
                        self.identifiers_into(name, &mut bound.assigned);
                    }
                }
                "import_statement" => {
                    let mut cursor = node.walk();
                    for name in node.children_by_field_name("name", &mut cursor) {
                        let bound_name = match name.kind() {
                            "aliased_import" => name.child_by_field_name("alias"),
                            // `import a.b` binds `a`.
                            _ => name.named_child(0),
                        };
                        if let Some(bound_name) = bound_name {
                            bound.imported_modules.insert(self.text_of(bound_name).to_owned());
                        }
                    }
                }
                _ => {}
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
    }

    fn identifiers_into(&self, node: tree_sitter::Node<'_>, into: &mut HashSet<String>) {
        let mut stack = vec![node];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "identifier" => {
                    into.insert(self.text_of(node).to_owned());
                }
                // `a.b = …` and `a[i] = …` bind no name.
                "attribute" | "subscript" => {}
                _ => {
                    let mut cursor = node.walk();
                    stack.extend(node.named_children(&mut cursor));
                }
            }
        }
    }
}

/// Whether `string` is a docstring doctest collects: the first statement of a module, a class
/// body or a function body (review44 RISK 7: any string with a `>>>` prompt was read as one, a
/// REPL prompt constant among them).
fn is_docstring(string: tree_sitter::Node<'_>) -> bool {
    let Some(statement) = string.parent().filter(|parent| parent.kind() == "expression_statement") else { return false };
    if statement.named_child_count() != 1 {
        return false;
    }
    let Some(body) = statement.parent() else { return false };
    let first_statement = {
        let mut cursor = body.walk();
        let first = body.named_children(&mut cursor).find(|child| child.kind() != "comment");
        first
    };
    if first_statement.is_none_or(|first| first.id() != statement.id()) {
        return false;
    }
    match body.kind() {
        "module" => true,
        "block" => body.parent().is_some_and(|owner| matches!(owner.kind(), "function_definition" | "class_definition")),
        _ => false,
    }
}

/// Whether `string` is a value of the module's `__test__` dict (`__test__ = {"name": """>>> …"""}`),
/// which doctest collects too.
fn is_module_test_value(string: tree_sitter::Node<'_>, text: &str) -> bool {
    let Some(pair) = string.parent().filter(|parent| parent.kind() == "pair") else { return false };
    if pair.child_by_field_name("value").is_none_or(|value| value.id() != string.id()) {
        return false;
    }
    let Some(assignment) = pair.parent().filter(|dict| dict.kind() == "dictionary").and_then(|dict| dict.parent()) else { return false };
    assignment.kind() == "assignment"
        && assignment.child_by_field_name("left").is_some_and(|left| text.get(left.start_byte()..left.end_byte()) == Some("__test__"))
        && assignment.parent().and_then(|statement| statement.parent()).is_some_and(|module| module.kind() == "module")
}

/// The examples of each docstring of `text` (and each value of its `__test__` dict) that holds a
/// `>>>` prompt.
///
/// With a syntax error in the file, every string with a prompt counts (its docstrings may sit
/// under an error node); the flag says whether the file parsed cleanly.
fn docstring_examples(text: &str) -> (Vec<Vec<DoctestExample>>, bool) {
    if !text.contains(">>>") {
        return (Vec::new(), true);
    }
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(text, SupportLang::Python) else { return (Vec::new(), false) };
    let parsed_cleanly = !root.root().get_inner_node().has_error();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut stack = vec![root.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "string" {
            if text.get(node.start_byte()..node.end_byte()).is_some_and(|string| string.contains(">>>"))
                && (!parsed_cleanly || is_docstring(node) || is_module_test_value(node, text))
            {
                let first = node.start_position().row;
                let last = node.end_position().row;
                // The closing quotes' line holds the string up to them.
                let mut cursor = node.walk();
                let end_column =
                    node.named_children(&mut cursor).find(|child| child.kind() == "string_end").map(|end| end.start_position().column);
                let rows: Vec<(usize, &str)> = (first + 1..=last)
                    .filter_map(|row| {
                        let line = *lines.get(row)?;
                        let line =
                            if row == last { line.get(..end_column.unwrap_or(line.len()).min(line.len())).unwrap_or(line) } else { line };
                        Some((row, line))
                    })
                    .collect();
                let examples = examples_of_rows(&rows);
                if !examples.is_empty() {
                    out.push(examples);
                }
            }
            continue;
        }
        let mut cursor = node.walk();
        let mut children: Vec<_> = node.named_children(&mut cursor).collect();
        children.reverse();
        stack.extend(children);
    }
    (out, parsed_cleanly)
}

/// The indentation of a `>>>` prompt line (`>>>` alone or followed by a space).
fn prompt_indent(line: &str) -> Option<usize> {
    let trimmed = line.trim_start();
    let rest = trimmed.strip_prefix(">>>")?;
    (rest.is_empty() || rest.starts_with(' ')).then_some(line.len() - trimmed.len())
}

/// Whether a line is a `...` continuation of an example's source (`_EXAMPLE_RE`'s PS2).
fn is_continuation(line: &str) -> bool {
    line.trim_start().starts_with("...")
}

/// The examples among a string's lines (0-based line, text), as doctest's `_EXAMPLE_RE` cuts
/// them.
fn examples_of_rows(rows: &[(usize, &str)]) -> Vec<DoctestExample> {
    let mut examples = Vec::new();
    let mut index = 0;
    while index < rows.len() {
        let (row, line) = rows[index];
        let Some(indent) = prompt_indent(line) else {
            index += 1;
            continue;
        };
        let code_start = |line: &str| {
            let lead = line.len() - line.trim_start().len();
            (lead + 4).min(line.len())
        };
        let mut source = vec![(row, code_start(line))];
        let mut ignore_exception_detail = ignores_exception_detail(line);
        index += 1;
        while index < rows.len() && is_continuation(rows[index].1) {
            source.push((rows[index].0, code_start(rows[index].1)));
            ignore_exception_detail |= ignores_exception_detail(rows[index].1);
            index += 1;
        }
        let mut want = Vec::new();
        let mut want_texts = Vec::new();
        while index < rows.len() {
            let (row, line) = rows[index];
            let lead = line.len() - line.trim_start().len();
            if line.trim().is_empty() || prompt_indent(line).is_some() || lead < indent {
                break;
            }
            want.push(row);
            want_texts.push(line);
            index += 1;
        }
        let is_header = |line: &str| {
            let line = line.trim();
            line.starts_with("Traceback (most recent call last):") || line.starts_with("Traceback (innermost last):")
        };
        // The first line after the header that starts (at the example's indentation) with a word
        // character; with none, doctest compares the output as it is.
        let exception_line = want_texts.first().filter(|first| is_header(first)).and_then(|_| {
            want_texts
                .iter()
                .zip(&want)
                .skip(1)
                .find(|(line, _)| line.get(indent..).and_then(|rest| rest.chars().next()).is_some_and(|c| c.is_alphanumeric() || c == '_'))
                .map(|(_, row)| *row)
        });
        examples.push(DoctestExample { source, want, indent, ignore_exception_detail, exception_line });
    }
    examples
}

/// Whether a source line's `# doctest:` directive turns `IGNORE_EXCEPTION_DETAIL` on.
fn ignores_exception_detail(line: &str) -> bool {
    let Some(hash) = line.find('#') else { return false };
    let comment = line[hash + 1..].trim_start();
    comment
        .strip_prefix("doctest:")
        .is_some_and(|options| options.split(|c: char| c == ',' || c.is_whitespace()).any(|option| option == "+IGNORE_EXCEPTION_DETAIL"))
}

/// What the Python definition whose name starts at byte `byte_column` of 0-based `line` of
/// `text` is: a parameter (with its function), a class member, a module-level name; `None` when
/// the file does not parse, the position holds no identifier or it is none of these (a local is
/// told by [`crate::lsp::rename_local_scope`]).
pub fn renamed_python_symbol(text: &str, line: usize, byte_column: usize) -> Option<RenamedPythonSymbol> {
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(text, SupportLang::Python).ok()?;
    let line_start = crate::lsp::position::line_start_byte(text, line);
    let offset = line_start + byte_column;
    let top = root.root().get_inner_node();
    let node = top.descendant_for_byte_range(offset, offset + 1)?;
    if node.kind() != "identifier" {
        return None;
    }
    let name_of = |node: tree_sitter::Node<'_>| -> Option<String> {
        node.child_by_field_name("name").and_then(|name| text.get(name.start_byte()..name.end_byte())).map(str::to_owned)
    };
    let parent = node.parent()?;
    // A parameter: the identifier is the parameter's name, its list a function's.
    let is_parameter_name = match parent.kind() {
        "parameters" => true,
        "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
            parent.named_child(0).is_some_and(|first| first.id() == node.id())
        }
        "default_parameter" | "typed_default_parameter" => parent.child_by_field_name("name").is_some_and(|name| name.id() == node.id()),
        _ => false,
    };
    if is_parameter_name {
        let mut list = parent;
        while list.kind() != "parameters" {
            list = list.parent()?;
            if !matches!(list.kind(), "parameters" | "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern") {
                return None;
            }
        }
        let function = list.parent().filter(|function| function.kind() == "function_definition")?;
        let function_name = name_of(function)?;
        let mut callables = vec![function_name.clone()];
        if matches!(function_name.as_str(), "__init__" | "__new__") {
            if let Some(class_name) = class_of_body(function).and_then(name_of) {
                callables.push(class_name);
            }
        }
        return Some(RenamedPythonSymbol::Parameter { function: function_name, callables });
    }
    // A member: a `def`/`class` or an assignment in a class body, or an attribute (`self.x = …`).
    let named_definition = matches!(parent.kind(), "function_definition" | "class_definition")
        && parent.child_by_field_name("name").is_some_and(|name| name.id() == node.id());
    if named_definition && class_of_body(parent).is_some() {
        return Some(RenamedPythonSymbol::Member { constructor_class: None });
    }
    if parent.kind() == "attribute" && parent.child_by_field_name("attribute").is_some_and(|name| name.id() == node.id()) {
        return Some(RenamedPythonSymbol::Member { constructor_class: None });
    }
    if parent.kind() == "assignment" && parent.child_by_field_name("left").is_some_and(|left| left.id() == node.id()) {
        let statement = parent.parent().filter(|statement| statement.kind() == "expression_statement");
        if let Some(class) = statement.and_then(class_of_body) {
            let constructor_class = class_has_field_constructor(class, text).then(|| name_of(class)).flatten();
            return Some(RenamedPythonSymbol::Member { constructor_class });
        }
    }
    crate::lsp::rename_public_names::python_module_level_occurrence(text, line, byte_column).then_some(RenamedPythonSymbol::ModuleLevel)
}

/// The decorators whose class gets a constructor that takes the class-body fields as keyword
/// arguments, by the last part of their dotted name (`dataclasses.dataclass`, `attr.s`,
/// `attrs.define`, `@dataclass(frozen=True)`).
const FIELD_CONSTRUCTOR_DECORATORS: &[&str] = &["dataclass", "s", "attrs", "define", "frozen", "mutable"];

/// The bases whose subclasses get such a constructor, by the last part of their dotted name.
const FIELD_CONSTRUCTOR_BASES: &[&str] = &["NamedTuple", "TypedDict", "BaseModel", "BaseSettings", "Struct"];

/// Whether `class` (a `class_definition` of `text`) gets a constructor that takes its class-body
/// fields as keyword arguments: a decorator of [`FIELD_CONSTRUCTOR_DECORATORS`] or a base of
/// [`FIELD_CONSTRUCTOR_BASES`]. A subclass of such a class that has neither is not told.
fn class_has_field_constructor(class: tree_sitter::Node<'_>, text: &str) -> bool {
    let last_part = |node: tree_sitter::Node<'_>| -> Option<String> {
        let node = if node.kind() == "call" { node.child_by_field_name("function")? } else { node };
        let name = text.get(node.start_byte()..node.end_byte())?;
        Some(name.rsplit('.').next().unwrap_or(name).trim().to_owned())
    };
    let decorated = class.parent().filter(|parent| parent.kind() == "decorated_definition").is_some_and(|definition| {
        let mut cursor = definition.walk();
        let decorators: Vec<_> = definition.named_children(&mut cursor).filter(|child| child.kind() == "decorator").collect();
        decorators
            .into_iter()
            .filter_map(|decorator| decorator.named_child(0))
            .filter_map(last_part)
            .any(|name| FIELD_CONSTRUCTOR_DECORATORS.contains(&name.as_str()))
    });
    let based = class.child_by_field_name("superclasses").is_some_and(|bases| {
        let mut cursor = bases.walk();
        let bases: Vec<_> = bases.named_children(&mut cursor).collect();
        bases.into_iter().filter_map(last_part).any(|name| FIELD_CONSTRUCTOR_BASES.contains(&name.as_str()))
    });
    decorated || based
}

/// The class whose body holds `definition` directly (through a decorator).
fn class_of_body(definition: tree_sitter::Node<'_>) -> Option<tree_sitter::Node<'_>> {
    let mut up = definition.parent()?;
    if up.kind() == "decorated_definition" {
        up = up.parent()?;
    }
    if up.kind() != "block" {
        return None;
    }
    up.parent().filter(|class| class.kind() == "class_definition")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZIP_EQUAL: &str = "def zip_equal(*iterables):\n    \"\"\"Zip, but raise.\n\n        >>> it_1 = range(3)\n        >>> list(zip_equal(it_1, iter('abcd'))) # doctest: +IGNORE_EXCEPTION_DETAIL\n        Traceback (most recent call last):\n        ...\n        more.UnequalIterablesError: Iterables have different\n        lengths\n\n    \"\"\"\n\n\ndef grouper(it):\n    \"\"\"Group.\n\n    >>> list(grouper('ABC'))\n    Traceback (most recent call last):\n      File \"x\", line 1, in UnequalIterablesError\n    UnequalIterablesError: bad\n    \"\"\"\n";

    #[test]
    fn examples_are_cut_as_doctest_cuts_them() {
        let doctests = PythonDoctests::parse(ZIP_EQUAL.to_owned());
        assert_eq!(doctests.docstrings().len(), 2);
        let first = &doctests.docstrings()[0];
        assert_eq!(first.len(), 2);
        assert_eq!(first[0].source, vec![(3, 12)]);
        assert!(first[0].want.is_empty());
        assert_eq!(first[1].want, vec![5, 6, 7, 8]);
        assert!(first[1].ignore_exception_detail);
        assert_eq!(first[1].exception_line, Some(7));
        // The closing quotes end the second docstring's output.
        let second = &doctests.docstrings()[1];
        assert_eq!(second[0].want, vec![17, 18, 19]);
        assert_eq!(second[0].exception_line, Some(19));
        assert!(!second[0].ignore_exception_detail);
    }

    #[test]
    fn a_traceback_is_compared_in_its_exception_and_under_ignore_exception_detail_only_in_its_class_name() {
        let doctests = PythonDoctests::parse(ZIP_EQUAL.to_owned());
        let at = |line: usize, word: &str| -> Option<DoctestOccurrence> {
            let text = ZIP_EQUAL.lines().nth(line).unwrap();
            let byte = text.find(word).unwrap();
            doctests.occurrence(line, byte, word.len(), Some(&RenamedPythonSymbol::ModuleLevel))
        };
        assert_eq!(at(7, "UnequalIterablesError"), Some(DoctestOccurrence::ExpectedOutput));
        assert_eq!(at(7, "more"), Some(DoctestOccurrence::Other(OtherDoctestName::NotCompared)), "the module path is ignored");
        assert_eq!(at(7, "different"), Some(DoctestOccurrence::Other(OtherDoctestName::NotCompared)), "the detail is ignored");
        assert_eq!(at(8, "lengths"), Some(DoctestOccurrence::Other(OtherDoctestName::NotCompared)));
        // Without the option: the whole exception, not the stack.
        assert_eq!(at(18, "UnequalIterablesError"), Some(DoctestOccurrence::Other(OtherDoctestName::NotCompared)));
        assert_eq!(at(19, "UnequalIterablesError"), Some(DoctestOccurrence::ExpectedOutput));
        assert_eq!(at(19, "bad"), Some(DoctestOccurrence::ExpectedOutput));
        // Prose is no example.
        assert_eq!(at(1, "Zip"), None);
    }

    const MORE: &str = "def ilen(iterable):\n    \"\"\"Count.\n\n    >>> ilen(iterable=[1, 2])\n    2\n    \"\"\"\n    return sum(1 for _ in iterable)\n\n\ndef windowed(seq, n, strict=False):\n    \"\"\"Windows.\n\n    >>> iterable = [1, 2, 3]\n    >>> list(windowed(iterable, 2, strict=True))\n    [(1, 2), (2, 3)]\n    >>> p = peekable(iterable)\n    >>> p.prepend(0)\n    >>> import more as mi\n    >>> list(prepend(0, iterable)), mi.prepend\n    ([0, 1, 2, 3], <function prepend>)\n    \"\"\"\n\n\nclass peekable:\n    def __init__(self, iterable):\n        self._it = iterable\n\n    def prepend(self, *items):\n        pass\n\n\ndef prepend(value, iterator):\n    pass\n";

    #[test]
    fn the_renamed_symbol_is_read_from_its_definition() {
        let position = |line: usize, word: &str, nth: usize| -> (usize, usize) {
            let text = MORE.lines().nth(line).unwrap();
            (line, text.match_indices(word).nth(nth).unwrap().0)
        };
        let (line, byte) = position(0, "iterable", 0);
        assert_eq!(
            renamed_python_symbol(MORE, line, byte),
            Some(RenamedPythonSymbol::Parameter { function: "ilen".to_owned(), callables: vec!["ilen".to_owned()] })
        );
        let (line, byte) = position(24, "iterable", 0);
        assert_eq!(
            renamed_python_symbol(MORE, line, byte),
            Some(RenamedPythonSymbol::Parameter {
                function: "__init__".to_owned(),
                callables: vec!["__init__".to_owned(), "peekable".to_owned()]
            })
        );
        let (line, byte) = position(9, "strict", 0);
        assert!(
            matches!(renamed_python_symbol(MORE, line, byte), Some(RenamedPythonSymbol::Parameter { function, .. }) if function == "windowed")
        );
        let (line, byte) = position(27, "prepend", 0);
        assert_eq!(renamed_python_symbol(MORE, line, byte), Some(RenamedPythonSymbol::Member { constructor_class: None }));
        let (line, byte) = position(25, "_it", 0);
        assert_eq!(renamed_python_symbol(MORE, line, byte), Some(RenamedPythonSymbol::Member { constructor_class: None }));
        let (line, byte) = position(31, "prepend", 0);
        assert_eq!(renamed_python_symbol(MORE, line, byte), Some(RenamedPythonSymbol::ModuleLevel));
        let (line, byte) = position(23, "peekable", 0);
        assert_eq!(renamed_python_symbol(MORE, line, byte), Some(RenamedPythonSymbol::ModuleLevel));
    }

    #[test]
    fn only_the_occurrences_that_can_name_the_renamed_symbol_count() {
        let doctests = PythonDoctests::parse(MORE.to_owned());
        let at = |line: usize, word: &str, nth: usize, symbol: &RenamedPythonSymbol| -> Option<DoctestOccurrence> {
            let text = MORE.lines().nth(line).unwrap();
            let byte = text.match_indices(word).nth(nth).unwrap().0;
            doctests.occurrence(line, byte, word.len(), Some(symbol))
        };
        let iterable = RenamedPythonSymbol::Parameter { function: "ilen".to_owned(), callables: vec!["ilen".to_owned()] };
        assert_eq!(at(3, "iterable", 0, &iterable), Some(DoctestOccurrence::Source), "ilen(iterable=…)");
        let other = Some(DoctestOccurrence::Other(OtherDoctestName::NotAKeywordOfTheFunction));
        assert_eq!(at(12, "iterable", 0, &iterable), other, "a variable of another example");
        assert_eq!(at(13, "iterable", 0, &iterable), other);
        let strict = RenamedPythonSymbol::Parameter { function: "chunked".to_owned(), callables: vec!["chunked".to_owned()] };
        assert_eq!(at(13, "strict", 0, &strict), other, "windowed's keyword");
        let member = RenamedPythonSymbol::Member { constructor_class: None };
        assert_eq!(at(16, "prepend", 0, &member), Some(DoctestOccurrence::Source), "p.prepend");
        assert_eq!(at(18, "prepend", 0, &member), Some(DoctestOccurrence::Other(OtherDoctestName::NotAnAttribute)));
        assert_eq!(at(18, "prepend", 1, &member), Some(DoctestOccurrence::Other(OtherDoctestName::AttributeOfAnImportedModule)));
        assert_eq!(at(19, "prepend", 0, &member), Some(DoctestOccurrence::Other(OtherDoctestName::NotAnAttribute)), "output");
        let module_level = RenamedPythonSymbol::ModuleLevel;
        assert_eq!(at(16, "prepend", 0, &module_level), Some(DoctestOccurrence::Other(OtherDoctestName::AttributeOfAnAssignedValue)));
        assert_eq!(at(18, "prepend", 0, &module_level), Some(DoctestOccurrence::Source));
        assert_eq!(at(18, "prepend", 1, &module_level), Some(DoctestOccurrence::Source), "mi.prepend");
        assert_eq!(at(19, "prepend", 0, &module_level), Some(DoctestOccurrence::ExpectedOutput));
        assert_eq!(at(13, "strict", 0, &module_level), Some(DoctestOccurrence::Other(OtherDoctestName::KeywordArgument)));
        assert_eq!(at(12, "iterable", 0, &RenamedPythonSymbol::Local), Some(DoctestOccurrence::Other(OtherDoctestName::Local)));
        // The output of an example that calls the parameter's function counts.
        let windowed = RenamedPythonSymbol::Parameter { function: "windowed".to_owned(), callables: vec!["windowed".to_owned()] };
        assert_eq!(at(13, "strict", 0, &windowed), Some(DoctestOccurrence::Source));
        // Unknown: everything counts.
        assert_eq!(doctests.occurrence(12, 8, 8, None), Some(DoctestOccurrence::Source));
    }

    #[test]
    fn only_docstrings_and_the_test_dict_hold_examples() {
        let text = "\"\"\"Module.\n\n>>> one()\n1\n\"\"\"\n\nPROMPT = \"\"\"\n>>> not_an_example()\n\"\"\"\n\n\ndef f():\n    # a comment first\n    \"\"\"F.\n\n    >>> f()\n    \"\"\"\n    x = \"\"\"\n    >>> neither()\n    \"\"\"\n\n\n__test__ = {\"extra\": \"\"\"\n>>> two()\n2\n\"\"\"}\n";
        let doctests = PythonDoctests::parse(text.to_owned());
        let sources: Vec<usize> =
            doctests.docstrings().iter().flatten().flat_map(|example| example.source.iter().map(|(line, _)| *line)).collect();
        let mut sources = sources;
        sources.sort();
        // The module docstring (line 2), f's docstring (line 15), the __test__ value (line 23).
        assert_eq!(sources, vec![2, 15, 23], "{:?}", doctests.docstrings());
    }

    const FIELDS: &str = "from dataclasses import dataclass\nfrom typing import NamedTuple\n\n\n@dataclass(frozen=True)\nclass Point:\n    \"\"\"A point.\n\n    >>> Point(x=1, y=2)\n    Point(x=1, y=2)\n    >>> Plain(x=1).x\n    1\n    \"\"\"\n\n    x: int\n    y: int = 0\n\n\nclass Pair(typing.NamedTuple):\n    x: int\n\n\nclass Plain:\n    x = 0\n\n    def __init__(self, x):\n        self.x = x\n";

    #[test]
    fn a_field_of_a_generated_constructor_is_named_by_the_constructor_keyword_and_its_repr() {
        let position = |line: usize, word: &str, nth: usize| -> (usize, usize) {
            let text = FIELDS.lines().nth(line).unwrap();
            (line, text.match_indices(word).nth(nth).unwrap().0)
        };
        let point_x = RenamedPythonSymbol::Member { constructor_class: Some("Point".to_owned()) };
        let (line, byte) = position(14, "x", 0);
        assert_eq!(renamed_python_symbol(FIELDS, line, byte), Some(point_x.clone()), "a dataclass field");
        let (line, byte) = position(15, "y", 0);
        assert_eq!(
            renamed_python_symbol(FIELDS, line, byte),
            Some(RenamedPythonSymbol::Member { constructor_class: Some("Point".to_owned()) }),
            "a field with a default"
        );
        let (line, byte) = position(19, "x", 0);
        assert_eq!(
            renamed_python_symbol(FIELDS, line, byte),
            Some(RenamedPythonSymbol::Member { constructor_class: Some("Pair".to_owned()) }),
            "a NamedTuple field, its base dotted"
        );
        let (line, byte) = position(23, "x", 0);
        assert_eq!(
            renamed_python_symbol(FIELDS, line, byte),
            Some(RenamedPythonSymbol::Member { constructor_class: None }),
            "a plain class attribute: its __init__ takes its own parameter"
        );
        let doctests = PythonDoctests::parse(FIELDS.to_owned());
        let at = |line: usize, word: &str, nth: usize, symbol: &RenamedPythonSymbol| -> Option<DoctestOccurrence> {
            let (line, byte) = position(line, word, nth);
            doctests.occurrence(line, byte, word.len(), Some(symbol))
        };
        assert_eq!(at(8, "x", 0, &point_x), Some(DoctestOccurrence::Source), "Point(x=1)");
        assert_eq!(at(9, "x", 0, &point_x), Some(DoctestOccurrence::ExpectedOutput), "the repr Point(x=1, y=2)");
        assert_eq!(at(10, "x", 0, &point_x), Some(DoctestOccurrence::Other(OtherDoctestName::NotAnAttribute)), "Plain(x=1)");
        assert_eq!(at(10, "x", 1, &point_x), Some(DoctestOccurrence::Source), ".x");
        // Another class whose name ends with the field's class's is no repr of it (review45 RISK 9).
        let my_point = PythonDoctests::parse(FIELDS.replace("    Point(x=1, y=2)\n    >>> Plain", "    MyPoint(x=1, y=2)\n    >>> Plain"));
        let line = FIELDS.lines().nth(9).unwrap().replace("Point(", "MyPoint(");
        let byte = line.find("x=").unwrap();
        assert_eq!(my_point.occurrence(9, byte, 1, Some(&point_x)), Some(DoctestOccurrence::Other(OtherDoctestName::NotAnAttribute)));
        let plain_x = RenamedPythonSymbol::Member { constructor_class: None };
        assert_eq!(at(8, "x", 0, &plain_x), Some(DoctestOccurrence::Other(OtherDoctestName::NotAnAttribute)));
        assert_eq!(at(9, "x", 0, &plain_x), Some(DoctestOccurrence::Other(OtherDoctestName::NotAnAttribute)));
    }
}
