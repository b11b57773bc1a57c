//! Names as the scenario file writes them, and the namespaces that resolve them: shared by the
//! first pass (records hold `Named`s) and the second (`resolve`, `conditioner::expand`), so
//! that neither reaches into the other.

use super::source::{suggestion, Fail, Source};
use std::collections::HashMap;
use std::rc::Rc;

/// The namespaces' hash: rustc-hash's Fx hash, not the standard library's SipHash (a defence
/// against chosen keys a scenario file does not need): at a million flows the loader defines
/// three million names, and SipHash was a quarter of loading (issue 28).
pub(crate) type FastHash = rustc_hash::FxBuildHasher;

/// Most nodes a scenario may have: node indices are `u32`s (`net::routing`, `Packet`), and
/// 2^24 nodes already take gigabytes of names and tables. (Until issue 28 the limit was 4,096,
/// for forwarding tables of n² entries; `net::routing` no longer holds a square.)
pub(crate) const MAX_NODES: u64 = 1 << 24;
/// Most flows a scenario may have after expansion.
pub(crate) const MAX_FLOWS: u64 = 1_000_000;

/// A name as written, with its position.
#[derive(Clone, Debug)]
pub(crate) struct Named {
    pub name: String,
    pub at: usize,
}

/// What a name refers to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ref {
    Node(usize),
    Group { first: usize, len: usize },
}

impl Ref {
    pub(crate) fn members(self) -> std::ops::Range<usize> {
        match self {
            Ref::Node(i) => i..i + 1,
            Ref::Group { first, len } => first..first + len,
        }
    }
}

/// A defined name: what it is and where it was defined, for collision messages.
pub(crate) struct Def {
    pub r: Ref,
    desc: Desc,
}

/// How a `Def` describes itself: its own words, or, for a member of a group (a million of
/// them at a million flows), its group's, the member's words made only for a message.
enum Desc {
    /// "node 'r1'", "group 'src'"; "node[3], line 12".
    Own {
        what: String,
        origin: String,
    },
    Member(Rc<Group>),
}

/// What a group's members share: "node" or "flow", the group's name and where it was defined.
pub(crate) struct Group {
    pub kind: &'static str,
    pub name: String,
    pub origin: String,
}

impl Def {
    /// A name defined in its own words: `what` ("node 'r1'"), `origin` ("node[3], line 12").
    pub(crate) fn new(r: Ref, what: String, origin: String) -> Self {
        Def {
            r,
            desc: Desc::Own { what, origin },
        }
    }

    /// A member of `group` ("node 'src1' of group 'src'", where the group was defined).
    pub(crate) fn member(r: Ref, group: &Rc<Group>) -> Self {
        Def {
            r,
            desc: Desc::Member(Rc::clone(group)),
        }
    }

    /// What the definition of `name` (this definition's name) is: "node 'r1'", "group 'src'",
    /// "node 'src1' of group 'src'".
    pub(crate) fn what(&self, name: &str) -> String {
        match &self.desc {
            Desc::Own { what, .. } => what.clone(),
            Desc::Member(g) => format!("{} '{name}' of group '{}'", g.kind, g.name),
        }
    }

    /// Where it was defined: "node[3], line 12".
    pub(crate) fn origin(&self) -> &str {
        match &self.desc {
            Desc::Own { origin, .. } => origin,
            Desc::Member(g) => &g.origin,
        }
    }
}

/// One namespace of names (nodes and node groups, flows and flow groups, or conditioners).
/// A flow's `Ref` holds flow indices, a node's node indices.
pub(crate) struct Names<'s> {
    src: &'s Source<'s>,
    map: HashMap<Rc<str>, Def, FastHash>,
    /// Definition order, for suggestions that do not depend on hashing (the map's strings).
    order: Vec<Rc<str>>,
}

impl<'s> Names<'s> {
    pub(crate) fn new(src: &'s Source<'s>) -> Self {
        Names {
            src,
            map: HashMap::default(),
            order: Vec::new(),
        }
    }

    /// Defines `name`; if it is taken, the error is `on_clash(existing)`.
    pub(crate) fn define(
        &mut self,
        name: &str,
        def: Def,
        on_clash: impl FnOnce(&Def) -> Fail,
    ) -> Result<(), Fail> {
        if let Some(old) = self.map.get(name) {
            return Err(on_clash(old));
        }
        let name: Rc<str> = name.into();
        self.map.insert(Rc::clone(&name), def);
        self.order.push(name);
        Ok(())
    }

    pub(crate) fn get(&self, n: &Named, field: &str, what: &str) -> Result<&Def, Fail> {
        self.map.get(n.name.as_str()).ok_or_else(|| {
            Fail::new(
                n.at,
                field,
                format!(
                    "unknown {what} '{}'{}",
                    n.name,
                    suggestion(&n.name, self.order.iter().map(|s| &**s))
                ),
            )
        })
    }

    pub(crate) fn origin(&self, path: &str, at: usize) -> String {
        format!("{path}, line {}", self.src.line(at))
    }
}

/// Pairs of nodes from two references: one with one, a group member by member with one node,
/// or two groups of the same size member i with member i.
pub(crate) fn pair_up(a: Ref, b: Ref) -> Result<Vec<(usize, usize)>, (usize, usize)> {
    match (a, b) {
        (Ref::Group { len: ka, .. }, Ref::Group { len: kb, .. }) if ka != kb => Err((ka, kb)),
        (Ref::Group { .. }, Ref::Group { .. }) => Ok(a.members().zip(b.members()).collect()),
        _ => Ok(a
            .members()
            .flat_map(|x| b.members().map(move |y| (x, y)))
            .collect()),
    }
}

pub(crate) fn size_mismatch(a: &Named, b: &Named, sizes: (usize, usize), what: &str) -> String {
    format!(
        "'{}' is a group of {} nodes and '{}' a group of {}: {what} between two groups pairs their members one to one, so the groups must be the same size",
        a.name, sizes.0, b.name, sizes.1
    )
}
