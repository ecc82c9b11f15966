//! Strings that name a TypeScript property by their syntax, told from strings of the same word.
//!
//! tsserver neither counts nor renames a string with the property it names when the string is
//! the left operand of `in` (`'value' in received`), a key passed to `Object.hasOwn` /
//! `hasOwnProperty` / `Reflect.*`, an argument of a `keyof` parameter (`emitChange('AsyncQueuer',
//! this)`), or an element access on an untyped base (`a['value']` with `a: any`): a rename of the
//! property leaves them, and tsc fails where the code relied on them (trial145 F3: ts-results-es's
//! `'value' in received ? received.value : …` — 8 tsc errors and every jest suite broken by a
//! rename of `OkImpl.value`, with nothing said). A string argument is a key only where the
//! callee's declaration types its parameter as a `keyof`: a test title (`test('map', …)`), a
//! message or `new Ok('Ok')` is the same word and no key (trial145 M6).
//!
//! The syntax tells the role ([`crate::lsp::syntax::ParsedSource::string_property_key_role`]);
//! the server is asked where the syntax cannot tell: the callee's declaration (its `definition`,
//! whose parameter is read by the syntax tree), and an element access's property (its
//! `definition`: another type's property, or none on an `any` base).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::lsp::client::LanguageServer;
use crate::lsp::syntax::{DeclaredParameter, ParsedSource};

/// Most `definition` requests one [`StringKeyChecker`] makes (a word that is a test title in
/// every test file would otherwise cost a request per title).
const MOST_REQUESTS: usize = 60;

/// Longest one `definition` request may take.
const REQUEST_TIME: Duration = Duration::from_secs(3);

/// What a string that is exactly a property's name is, by [`StringKeyChecker::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyCheck {
    /// It names a property of that name in code: how to say it (`left operand of `in``, `call
    /// argument to `key: K` of `emitChange`, a `keyof` parameter`).
    Key(String),
    /// An element access whose property the server resolves: to the declaration at this
    /// canonical path and 0-based line (another type's property unless it is the symbol's own).
    Defined(PathBuf, u32),
    /// No key: a string argument whose callee (`None`: no name, `make()('k')`) takes it with a
    /// parameter that is no `keyof` (`name: string` of `test`, as written), or whose
    /// declaration has no parameter list to read (`None`: `declare var test: jest.It`, a callee
    /// the server does not resolve).
    NotKey {
        /// The called name (`test`), `None` when the call has none.
        callee: Option<String>,
        /// The parameter as its declaration writes it (`name: string`), `None` when no
        /// parameter list was read.
        parameter: Option<String>,
    },
    /// Not asked: the request budget or the deadline ran out.
    Unchecked,
}

/// Most levels of `extends` [`StringKeyChecker::keyed_type_base`] follows from a keyed type.
const MOST_HERITAGE_STEPS: usize = 6;

/// Most type declarations [`StringKeyChecker::keyed_type_base`] reads for one key.
const MOST_HERITAGE_DECLARATIONS: usize = 40;

/// Whether a keyed type is built on the renamed member's type, by
/// [`StringKeyChecker::keyed_type_base`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyedTypeBase {
    /// It is, or extends (through these declarations' heritage), a type that declares the member:
    /// the names from the keyed type to that type (`["TableOptionsResolved", "CoreOptions"]`).
    BuiltOn(Vec<String>),
    /// Its declarations were all read whole and followed (or the key is over no named type):
    /// none is built on it.
    Unrelated,
    /// Not all followed: the request budget or the deadline ran out, too many declarations or
    /// levels, a name the server resolves to nothing or to no type declaration, or a type that
    /// is not followed (mapped, conditional, a utility's non-literal keys).
    Unchecked,
}

impl KeyedTypeBase {
    /// How the chain reads in a note: `` `TableOptionsResolved` extends `CoreOptions` ``, or
    /// `` `A` extends `B`, which extends `C` ``; `None` unless built on an owner through at least
    /// one `extends`.
    pub(crate) fn chain_said(&self) -> Option<String> {
        let KeyedTypeBase::BuiltOn(chain) = self else { return None };
        let (first, rest) = chain.split_first()?;
        if rest.is_empty() {
            return None;
        }
        let mut said = format!("`{first}` extends `{}`", rest[0]);
        for name in &rest[1..] {
            said.push_str(&format!(", which extends `{name}`"));
        }
        Some(said)
    }
}

/// Checks strings of one call's files against a server, caching what it asked.
pub(crate) struct StringKeyChecker<'a> {
    server: &'a LanguageServer,
    workspace_root: &'a Path,
    deadline: Instant,
    requests: usize,
    /// The parameter a callee takes, per (file of the call, called name, argument index): one
    /// name in one file calls one declaration (every `test(…)` of a test file).
    parameters: HashMap<(PathBuf, String, usize), Option<Vec<DeclaredParameter>>>,
    /// The same by (called name, argument index) alone, from any file: the answer once the
    /// budget is spent (jest's `test` in the hundredth test file is the one in the first).
    parameters_by_name: HashMap<(String, usize), Option<Vec<DeclaredParameter>>>,
    declarations: HashMap<PathBuf, Option<ParsedSource>>,
}

impl<'a> StringKeyChecker<'a> {
    /// A checker asking `server` (its files read beneath `workspace_root`, or their dependency
    /// root) until `deadline`.
    pub(crate) fn new(server: &'a LanguageServer, workspace_root: &'a Path, deadline: Instant) -> Self {
        StringKeyChecker {
            server,
            workspace_root,
            deadline,
            requests: 0,
            parameters: HashMap::new(),
            parameters_by_name: HashMap::new(),
            declarations: HashMap::new(),
        }
    }

    /// What the string at 0-based `line0`, byte column `byte_column` of `path` (parsed as
    /// `source`; the column is its content's start) is, given its `role` by
    /// [`ParsedSource::string_property_key_role`]: a key of a value in code by the syntax alone
    /// (`in`, a built-in key lookup), by the callee's parameter (a call argument), or by the
    /// server's definition (an element access). Any other role is returned as a key.
    pub(crate) fn check(&mut self, path: &Path, source: &ParsedSource, line0: u32, byte_column: usize, role: &str) -> KeyCheck {
        if role == crate::lsp::syntax::CALL_ARGUMENT_ROLE {
            return self.check_argument(path, source, line0, byte_column);
        }
        if role == crate::lsp::syntax::ELEMENT_ACCESS_ROLE {
            let Some(line_text) = source.line_text(line0) else { return KeyCheck::Key(role.to_owned()) };
            let character = self.server.position_encoding().column_from_byte(line_text, byte_column);
            let Some(targets) = self.definitions(path, line0, character) else { return KeyCheck::Unchecked };
            // No definition: the base is `any` (or untyped), and the key may name this property.
            return match targets.into_iter().min() {
                Some((target, target_line, _)) => KeyCheck::Defined(target, target_line),
                None => KeyCheck::Key(format!("{role} on a base the server cannot type (`any`)")),
            };
        }
        KeyCheck::Key(role.to_owned())
    }

    /// Whether the string at `line0`/`byte_column` of `path` (parsed as `source`) is an argument
    /// its callee takes as a property key: the callee's declaration (asked of the server, cached
    /// per file, called name and argument index) has a `keyof` parameter there.
    fn check_argument(&mut self, path: &Path, source: &ParsedSource, line0: u32, byte_column: usize) -> KeyCheck {
        let Some(callee) = source.string_argument_callee(line0, byte_column) else {
            return KeyCheck::NotKey { callee: None, parameter: None };
        };
        let key = (path.to_path_buf(), callee.name.clone(), callee.argument_index);
        let parameters = match self.parameters.get(&key) {
            Some(known) => known.clone(),
            None => {
                let by_name = (callee.name.clone(), callee.argument_index);
                let Some(line_text) = source.line_text(callee.line0) else { return KeyCheck::Unchecked };
                let character = self.server.position_encoding().column_from_byte(line_text, callee.byte_column);
                let Some(targets) = self.definitions(path, callee.line0, character) else {
                    return match self.parameters_by_name.get(&by_name) {
                        Some(known) => Self::verdict(callee.name, known.clone()),
                        None => KeyCheck::Unchecked,
                    };
                };
                // Overloads and merged declarations: every declaration the name leads to.
                let mut targets: Vec<_> = targets.into_iter().collect();
                targets.sort();
                let mut found: Vec<DeclaredParameter> = Vec::new();
                for (target, target_line, target_character) in targets {
                    let declaration = self.declarations.entry(target.clone()).or_insert_with(|| {
                        let text = crate::lsp::listing::read_listed_file(self.workspace_root, &target)?;
                        ParsedSource::parse(&target, &text)
                    });
                    let Some(declaration) = declaration.as_ref() else { continue };
                    let Some(target_text) = declaration.line_text(target_line) else { continue };
                    let target_byte = self.server.position_encoding().byte_from_column(target_text, target_character);
                    found.extend(declaration.typescript_parameter_at(target_line, target_byte, callee.argument_index));
                }
                let known = (!found.is_empty()).then_some(found);
                self.parameters.insert(key, known.clone());
                self.parameters_by_name.insert(by_name, known.clone());
                known
            }
        };
        Self::verdict(callee.name, parameters)
    }

    /// Whether the type a string key in a type argument or an indexed-access type is a key of (the
    /// keyed type: `TableOptionsResolved` in `PartialKeys<TableOptionsResolved<TData>,
    /// 'onStateChange'>`, the key at 0-based `line0`, byte column `byte_column` of `path`, parsed
    /// as `source`) is, or is built on, one of `owners` — the declarations of the renamed member's
    /// type, each as (canonical path of its file, its name). The keyed type's name is resolved by
    /// the server's `definition`, then each declaration's `extends`/`implements` list and a type
    /// alias's (intersected) type references are followed the same way, breadth first, at most
    /// [`MOST_HERITAGE_STEPS`] levels and [`MOST_HERITAGE_DECLARATIONS`] declarations; the
    /// utilities that keep the member `member_name` (`Omit<X, 'other'>`, `Partial<X>`,
    /// `Pick<X, 'member_name'>`, …) are read through to `X` by
    /// [`ParsedSource::typescript_heritage_at`]. Trial168 F1: `interface
    /// TableOptionsResolved<TData> extends CoreOptions<TData>, FeatureOptions<TData> {}` — its
    /// key `'onStateChange'` names `CoreOptions.onStateChange`. `Unrelated` only when every
    /// declaration met was read whole and followed; a name the server resolves to nothing or to
    /// no type declaration (a type parameter), or a mapped, conditional or other type that is
    /// not followed, makes it `Unchecked` (review49 H2: `extends Omit<CoreOptions, 'data'>` was
    /// a definite "leave it", and tsc failed after the rename).
    pub(crate) fn keyed_type_base(
        &mut self,
        path: &Path,
        source: &ParsedSource,
        line0: u32,
        byte_column: usize,
        owners: &[(PathBuf, String)],
        member_name: &str,
    ) -> KeyedTypeBase {
        let Some(keyed) = source.string_key_base_type(line0, byte_column) else { return KeyedTypeBase::Unrelated };
        let Some(line_text) = source.line_text(keyed.line0) else { return KeyedTypeBase::Unrelated };
        let encoding = self.server.position_encoding();
        let start = (path.to_path_buf(), keyed.line0, encoding.column_from_byte(line_text, keyed.byte_column));
        let mut level: Vec<(PathBuf, u32, u32, Vec<String>)> = vec![(start.0, start.1, start.2, Vec::new())];
        let mut seen: std::collections::HashSet<(PathBuf, u32)> = std::collections::HashSet::new();
        let mut unanswered = false;
        for step in 0..MOST_HERITAGE_STEPS {
            let mut next = Vec::new();
            for (at_path, at_line, at_character, chain) in level {
                let Some(targets) = self.definitions(&at_path, at_line, at_character) else {
                    unanswered = true;
                    continue;
                };
                let mut targets: Vec<_> = targets.into_iter().collect();
                if targets.is_empty() {
                    // The server resolves the name to no declaration: not settled.
                    unanswered = true;
                }
                targets.sort();
                for (target, target_line, target_character) in targets {
                    if seen.len() >= MOST_HERITAGE_DECLARATIONS {
                        unanswered = true;
                        break;
                    }
                    if !seen.insert((target.clone(), target_line)) {
                        continue;
                    }
                    let declaration = self.declarations.entry(target.clone()).or_insert_with(|| {
                        let text = crate::lsp::listing::read_listed_file(self.workspace_root, &target)?;
                        ParsedSource::parse(&target, &text)
                    });
                    // A declaration not read (no file, no line, a type parameter or another kind
                    // of declaration): not settled.
                    let heritage = declaration.as_ref().and_then(|declaration| {
                        let target_text = declaration.line_text(target_line)?;
                        let target_byte = encoding.byte_from_column(target_text, target_character);
                        declaration.typescript_heritage_at(target_line, target_byte, member_name)
                    });
                    let (Some(declaration), Some(heritage)) = (declaration.as_ref(), heritage) else {
                        unanswered = true;
                        continue;
                    };
                    let canonical = std::fs::canonicalize(&target).unwrap_or_else(|_| target.clone());
                    let mut chain = chain.clone();
                    chain.push(heritage.own_name.clone());
                    if owners.iter().any(|(owner_path, owner)| *owner == heritage.own_name && *owner_path == canonical) {
                        return KeyedTypeBase::BuiltOn(chain);
                    }
                    unanswered |= heritage.unfollowed;
                    for type_name in heritage.built_on {
                        let Some(type_line) = declaration.line_text(type_name.line0) else { continue };
                        let character = encoding.column_from_byte(type_line, type_name.byte_column);
                        next.push((target.clone(), type_name.line0, character, chain.clone()));
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            // Past the last level, names remain unread: not settled.
            level = next;
            unanswered |= step + 1 == MOST_HERITAGE_STEPS;
        }
        if unanswered {
            KeyedTypeBase::Unchecked
        } else {
            KeyedTypeBase::Unrelated
        }
    }

    /// What a string argument to `callee` is, given the parameters its declarations take there.
    fn verdict(callee: String, parameters: Option<Vec<DeclaredParameter>>) -> KeyCheck {
        match parameters {
            Some(parameters) => match parameters.iter().find(|parameter| parameter.is_keyof) {
                Some(keyof) => KeyCheck::Key(format!(
                    "{} to `{}` of `{}`, a `keyof` parameter",
                    crate::lsp::syntax::CALL_ARGUMENT_ROLE,
                    keyof.text,
                    callee
                )),
                None => KeyCheck::NotKey { callee: Some(callee), parameter: parameters.first().map(|parameter| parameter.text.clone()) },
            },
            None => KeyCheck::NotKey { callee: Some(callee), parameter: None },
        }
    }

    /// The server's definitions at (`line0`, `character`) of `path`; `None` when not asked (the
    /// budget or the deadline ran out).
    fn definitions(&mut self, path: &Path, line0: u32, character: u32) -> Option<std::collections::HashSet<(PathBuf, u32, u32)>> {
        let now = Instant::now();
        if self.requests >= MOST_REQUESTS || now >= self.deadline {
            return None;
        }
        self.requests += 1;
        let deadline = self.deadline.min(now + REQUEST_TIME);
        Some(crate::lsp::rename_coverage::definition_targets(self.server, path, line0, character, deadline))
    }
}
