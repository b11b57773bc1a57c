//! Names as the scenario file writes them, and the namespaces that resolve them: shared by the
//! first pass (records hold `Named`s) and the second (`resolve`, `conditioner::expand`), so
//! that neither reaches into the other.

use super::source::{suggestion, Fail, Source};
use std::collections::HashMap;

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
    /// "node 'r1'", "group 'src'", "node 'src1' of group 'src'".
    pub what: String,
    /// "node[3], line 12".
    pub origin: String,
}

/// One namespace of names (nodes and node groups, flows and flow groups, or conditioners).
/// A flow's `Ref` holds flow indices, a node's node indices.
pub(crate) struct Names<'s> {
    src: &'s Source<'s>,
    map: HashMap<String, Def>,
    /// Definition order, for suggestions that do not depend on hashing.
    order: Vec<String>,
}

impl<'s> Names<'s> {
    pub(crate) fn new(src: &'s Source<'s>) -> Self {
        Names {
            src,
            map: HashMap::new(),
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
        self.map.insert(name.to_string(), def);
        self.order.push(name.to_string());
        Ok(())
    }

    pub(crate) fn get(&self, n: &Named, field: &str, what: &str) -> Result<&Def, Fail> {
        self.map.get(&n.name).ok_or_else(|| {
            Fail::new(
                n.at,
                field,
                format!(
                    "unknown {what} '{}'{}",
                    n.name,
                    suggestion(&n.name, self.order.iter().map(String::as_str))
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
