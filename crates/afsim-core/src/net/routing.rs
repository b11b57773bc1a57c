//! Destination-based forwarding tables: shortest paths by hop count, then explicit routes,
//! in memory that grows with the network, not with its square.
//!
//! Read this first: each node forwards a packet by looking up `next_port(node, dst)`, the
//! output port to use. The answers are those of minimum-hop paths (as ns-2's static routing
//! with unit link costs): a breadth-first search from `dst` gives every node its hop distance,
//! and a node sends on the first link, in scenario order, towards a neighbour one hop closer —
//! so among equal-hop choices the link listed first wins and tables are deterministic.
//! Explicit routes then overwrite the entries along their path, in file order.
//!
//! Loops: a route's path must not visit a node twice (that is the only way explicit paths can
//! loop). Paths applied in order cannot form a loop between them: a node's entry follows the
//! last path that names it, and from there every hop is on that same path or a later one, so a
//! walk only ever moves forward along paths that end at the destination. Shortest-path entries
//! strictly decrease the hop distance, and reaching a path node hands over to the path.
//!
//! # How the answers are stored (issue 28)
//!
//! Until issue 28 this was a dense `n × n` array: 64 MB at 4,096 nodes, 160 GB at the 200,002
//! nodes of a dumbbell of 100,000 flows. Most nodes of a large scenario are hosts behind one
//! access link, where that array repeats one entry per destination. So:
//!
//! * **Stubs are pruned.** Nodes with exactly one link are removed, repeatedly (hosts, then an
//!   access router whose hosts are all gone, and so on), each remembering the link to the node
//!   it hung from, its *parent*. What remains is the *core*; every removed node hangs, in a
//!   tree, from one core node, its *anchor*. A tree meets the rest of the network only through
//!   the link to its parent, so (1) from a hanging node, every destination outside its subtree
//!   is reached through its parent, by the one link to it, and it is the only neighbour one hop
//!   closer: its children are farther; (2) a destination inside its subtree is reached through
//!   the child whose subtree holds it, the only neighbour closer; (3) from a core node, a
//!   destination hanging from another anchor is reached exactly as that anchor is: its hop
//!   distance from every core node is the anchor's plus a constant, and the node's children
//!   are never closer, so the first closer neighbour in link order is the same. Subtrees are
//!   intervals of a depth-first numbering, so "is `dst` below `node`" is two comparisons.
//! * **The core keeps columns**: for each core node that is the anchor of a destination
//!   packets are sent to (`Tables::compute`'s `dsts`), a breadth-first search over the core
//!   gives every core node its port towards it — the same search, over the same links in the
//!   same order, as the dense table did. A dumbbell's core is its two routers; a mesh with no
//!   hosts is all core, and its columns are the dense table's, restricted to the destinations
//!   in use.
//! * **Explicit routes** are kept as exceptions, `(node, dst) → port`, looked at first.
//!
//! * **Small networks also keep the answers**: up to `DENSE_MAX_NODES` nodes, every
//!   `(node, dst)` answer of the above is stored once in a dense `n × n` array of 2-byte
//!   entries (at most 128 KiB), so that a lookup is one load instead of an interval test, a
//!   walk down a subtree or a column (issue 25: that was 4 % of the instructions of
//!   tcp-dumbbell-100). It holds the same answers, computed by the same lookup.
//!
//! Memory is a few words per node plus `core × columns` entries; the columns are refused past
//! `MAX_CORE_ENTRIES` with an error that says so. The tests compare every `(node, dst)` answer
//! with the dense table's algorithm, kept there as the reference, on random networks and
//! routes.
//!
//! Not modelled: dynamic routing, equal-cost multipath, per-source routes.

use std::collections::BTreeMap;

/// Port numbering: link `i` owns port `2i` (its `a` end, sending towards `b`) and `2i+1` (its
/// `b` end, sending towards `a`).
#[inline]
pub fn port_of(link: usize, from_a: bool) -> u32 {
    (2 * link + usize::from(!from_a)) as u32
}

pub const NO_ROUTE: u32 = u32::MAX;
const NONE: u32 = u32::MAX;

/// Most core entries (core nodes × destination columns, 4 bytes each: 1 GiB) the tables
/// may hold.
pub const MAX_CORE_ENTRIES: u64 = 1 << 28;

/// Most nodes for which the tables also keep every answer in a dense array (`Tables::dense`).
pub const DENSE_MAX_NODES: usize = 256;
/// `Tables::dense`'s entry for `NO_ROUTE`.
const DENSE_NO_ROUTE: u16 = u16::MAX;

/// What a node needs for a lookup, in one place: 32 bytes, aligned, two to a cache line, so
/// that a lookup reads one line of the destination's (its interval, component and anchor, and
/// for a walk down to it its parent and the port towards it) and one of the node's (issue 28,
/// branch scale7: the parent and down ports were two more arrays, a line each per hop at
/// thousands of flows; 20 bytes an entry, which straddled lines, and 8 a node beside).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Entry {
    /// The nodes of this node's subtree (itself and what hangs below it; for a core node,
    /// everything hanging from it) are those whose `lo` is in `[lo, hi)`.
    lo: u32,
    hi: u32,
    /// The port towards the parent of a hanging node; `NONE` for a core node.
    up: u32,
    /// Connected component: no route leads to another.
    comp: u32,
    /// Core index of the node's anchor (of itself, for a core node); `NONE` in a component
    /// without a core (a tree, or an isolated node), where every route stays in the tree.
    core: u32,
    /// A hanging node's parent and the parent's port towards it (`NONE` for core nodes).
    parent: u32,
    down: u32,
    /// For a leaf (a hanging node with nothing below it: a host behind its one link) in a
    /// network of one component, `up`: the port of every packet it sends to another node,
    /// answered without the destination's entry; `NONE` otherwise.
    leaf_up: u32,
}

/// Forwarding tables for every node (`Default`: none, for a world that is done forwarding).
#[derive(Clone, Debug, Default)]
pub struct Tables {
    n: usize,
    node: Vec<Entry>,
    /// Core nodes.
    k: usize,
    /// Per core index: its column in `cols`, or `NONE` if no destination hangs from it.
    col_of: Vec<u32>,
    /// `cols[col * k + core]`: the port a core node sends on towards the column's anchor.
    cols: Vec<u32>,
    /// Explicit routes' entries, `(node << 32 | dst, port)`, sorted; later routes won.
    overrides: Vec<(u64, u32)>,
    /// `dense[node * n + dst]`: every answer of `lookup`, `DENSE_NO_ROUTE` for `NO_ROUTE`,
    /// when `n <= DENSE_MAX_NODES` and every port number fits below it; empty otherwise.
    dense: Vec<u16>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteError {
    /// `route[route].path` has no link between hop `hop` and hop `hop + 1`.
    NotAdjacent { route: usize, hop: usize },
    /// `route[route].path` is shorter than two nodes.
    TooShort { route: usize },
    /// `route[route].path` visits node `from` twice on its way to `to`: a forwarding loop.
    Loop {
        route: usize,
        from: usize,
        to: usize,
    },
    /// The core (`core` nodes left once stubs are pruned) needs an entry per core node for
    /// each of `columns` destination anchors: more than `MAX_CORE_ENTRIES`.
    TooLarge { core: usize, columns: usize },
}

impl std::fmt::Display for RouteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RouteError::NotAdjacent { hop, .. } => {
                write!(
                    f,
                    "no link joins hop {} and hop {} of the path",
                    hop,
                    hop + 1
                )
            }
            RouteError::TooShort { .. } => write!(f, "a route path needs at least two nodes"),
            RouteError::Loop { .. } => {
                write!(f, "the path visits a node twice (a forwarding loop)")
            }
            RouteError::TooLarge { core, columns } => write!(
                f,
                "the forwarding tables are too large: {core} nodes have more than one link (the \
                 network's core, where hosts behind a single link are left out) and packets go \
                 to destinations behind {columns} of them, {} entries; at most {MAX_CORE_ENTRIES} \
                 (1 GiB) are allowed",
                *core as u64 * *columns as u64
            ),
        }
    }
}

impl Tables {
    /// Builds tables for `n` nodes joined by `links` (pairs of node indices), with explicit
    /// `routes` (node paths) applied in order. `dsts` are the nodes packets may be addressed
    /// to: a destination not among them (nor hanging from the same core node as one of them)
    /// has no route from the core.
    pub fn compute(
        n: usize,
        links: &[(usize, usize)],
        routes: &[&[usize]],
        dsts: impl IntoIterator<Item = usize>,
    ) -> Result<Tables, RouteError> {
        assert!(n < NONE as usize && 2 * links.len() < NONE as usize);
        // adjacency: for each node, (neighbour, port) in link order
        let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        for (i, &(a, b)) in links.iter().enumerate() {
            adj[a].push((b as u32, port_of(i, true)));
            adj[b].push((a as u32, port_of(i, false)));
        }
        let overrides = explicit_routes(&adj, routes)?;
        let (parent, up, down) = prune(n, links, &adj);
        // Core indices, in node order, for the roots with links left (a root without any is
        // a tree's on its own, or an isolated node: nothing is routed through it from afar).
        let mut core_of = vec![NONE; n];
        let mut core_nodes: Vec<u32> = Vec::new();
        for u in 0..n {
            if parent[u] == NONE && adj[u].iter().any(|&(v, _)| parent[v as usize] == NONE) {
                core_of[u] = core_nodes.len() as u32;
                core_nodes.push(u as u32);
            }
        }
        let k = core_nodes.len();
        // the core's adjacency: the links left between core nodes, in link order
        let core_adj: Vec<Vec<(u32, u32)>> = core_nodes
            .iter()
            .map(|&u| {
                adj[u as usize]
                    .iter()
                    .filter(|&&(v, _)| parent[v as usize] == NONE)
                    .map(|&(v, p)| (core_of[v as usize], p))
                    .collect()
            })
            .collect();
        drop(adj);
        // components: of the core by breadth-first search, then one per link-less root
        let mut comp_core = vec![NONE; k];
        let mut frontier = std::collections::VecDeque::new();
        let mut n_comp = 0u32;
        for s in 0..k {
            if comp_core[s] != NONE {
                continue;
            }
            comp_core[s] = n_comp;
            frontier.push_back(s as u32);
            while let Some(u) = frontier.pop_front() {
                for &(v, _) in &core_adj[u as usize] {
                    if comp_core[v as usize] == NONE {
                        comp_core[v as usize] = n_comp;
                        frontier.push_back(v);
                    }
                }
            }
            n_comp += 1;
        }
        let mut comp_root = vec![NONE; n];
        for u in 0..n {
            if parent[u] == NONE {
                comp_root[u] = match core_of[u] {
                    NONE => {
                        n_comp += 1;
                        n_comp - 1
                    }
                    c => comp_core[c as usize],
                };
            }
        }
        let mut node = number_subtrees(n, &parent, &up, &core_of, &comp_root);
        for ((e, &p), &d) in node.iter_mut().zip(&parent).zip(&down) {
            (e.parent, e.down) = (p, d);
            if n_comp == 1 && e.up != NONE && e.hi == e.lo + 1 {
                e.leaf_up = e.up;
            }
        }

        // a column for every core node a destination hangs from
        let mut col_of = vec![NONE; k];
        let mut anchors: Vec<u32> = Vec::new();
        for d in dsts {
            let c = node[d].core;
            if c != NONE && col_of[c as usize] == NONE {
                col_of[c as usize] = anchors.len() as u32;
                anchors.push(c);
            }
        }
        if k as u64 * anchors.len() as u64 > MAX_CORE_ENTRIES {
            return Err(RouteError::TooLarge {
                core: k,
                columns: anchors.len(),
            });
        }
        let mut cols = vec![NO_ROUTE; k * anchors.len()];
        let mut dist = vec![u32::MAX; k];
        for (col, &a) in anchors.iter().enumerate() {
            // Links are full duplex, so hop distance to the anchor is a BFS from it.
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[a as usize] = 0;
            frontier.clear();
            frontier.push_back(a);
            while let Some(u) = frontier.pop_front() {
                for &(v, _) in &core_adj[u as usize] {
                    if dist[v as usize] == u32::MAX {
                        dist[v as usize] = dist[u as usize] + 1;
                        frontier.push_back(v);
                    }
                }
            }
            let column = &mut cols[col * k..(col + 1) * k];
            for u in 0..k {
                if u == a as usize || dist[u] == u32::MAX {
                    continue;
                }
                // first listed link towards a neighbour one hop closer
                if let Some(&(_, port)) = core_adj[u]
                    .iter()
                    .find(|&&(v, _)| dist[v as usize].wrapping_add(1) == dist[u])
                {
                    column[u] = port;
                }
            }
        }
        let mut tables = Tables {
            n,
            node,
            k,
            col_of,
            cols,
            overrides,
            dense: Vec::new(),
        };
        if n <= DENSE_MAX_NODES && 2 * links.len() < usize::from(DENSE_NO_ROUTE) {
            let dense = (0..n * n)
                .map(|i| match tables.lookup(i / n, i % n) {
                    NO_ROUTE => DENSE_NO_ROUTE,
                    p => p as u16,
                })
                .collect();
            tables.dense = dense;
        }
        Ok(tables)
    }

    /// The output port at `node` for packets to `dst`, or `NO_ROUTE`.
    #[inline]
    pub fn next_port(&self, node: usize, dst: usize) -> u32 {
        if !self.dense.is_empty() {
            return match self.dense[node * self.n + dst] {
                DENSE_NO_ROUTE => NO_ROUTE,
                p => u32::from(p),
            };
        }
        self.lookup(node, dst)
    }

    /// Where `next_port(node, ·)` reads first, for a prefetch (issue 28): `node`'s entry, from
    /// which a leaf answers. Only a hint: nothing is read.
    #[inline(always)]
    pub fn entry_hint(&self, node: usize) -> *const u8 {
        self.node.as_ptr().wrapping_add(node).cast()
    }

    /// The port a leaf `node` sends every packet on (its `leaf_up`), if the tables answer so
    /// (no dense array, no explicit route: `next_port` would then say the same for any other
    /// destination); `NO_ROUTE` otherwise. For a prefetch of that port (issue 28).
    #[inline(always)]
    pub fn leaf_port(&self, node: usize) -> u32 {
        if !self.dense.is_empty() || !self.overrides.is_empty() {
            return NO_ROUTE;
        }
        match self.node.get(node) {
            Some(e) if e.leaf_up != NONE => e.leaf_up,
            _ => NO_ROUTE,
        }
    }

    /// `next_port` from the pruned trees, core columns and explicit routes.
    ///
    /// The cases in the order of their cost (issue 28, branch scale9r): a host (a leaf) sends
    /// everything up without reading the destination's entry; a node whose child is the
    /// destination (an access router and its host) answers from the destination's entry
    /// alone; then as the module's documentation says. Entries are read in place, not copied.
    #[inline]
    fn lookup(&self, node: usize, dst: usize) -> u32 {
        if !self.overrides.is_empty() {
            // (apart, so that the common path makes no call and saves no register)
            return self.lookup_routed(node, dst);
        }
        self.lookup_tree(node, dst)
    }

    /// `lookup` with explicit routes: an exception's answer, else the trees' and columns'.
    #[cold]
    #[inline(never)]
    fn lookup_routed(&self, node: usize, dst: usize) -> u32 {
        match self.exception(node, dst) {
            Some(p) => p,
            None => self.lookup_tree(node, dst),
        }
    }

    /// `lookup` without explicit routes.
    #[inline]
    fn lookup_tree(&self, node: usize, dst: usize) -> u32 {
        let u = &self.node[node];
        if u.leaf_up != NONE {
            // (a leaf's subtree is itself; its network has one component)
            return if node == dst { NO_ROUTE } else { u.leaf_up };
        }
        let d = &self.node[dst];
        if d.parent as usize == node {
            // (`NONE` is no node's index)
            return d.down;
        }
        if u.lo <= d.lo && d.lo < u.hi {
            // below `node` (or `node` itself), not a child: down the child whose subtree
            // holds it, found by walking up from its parent
            return if node == dst {
                NO_ROUTE
            } else {
                self.descend(node, d.parent as usize)
            };
        }
        if u.comp != d.comp {
            return NO_ROUTE;
        }
        if u.up != NONE {
            return u.up;
        }
        // `node` is a core node and `dst` hangs from another in its component (a component
        // without a core is one tree, all below its root), so `d.core` is a core index
        match self.col_of[d.core as usize] {
            NONE => NO_ROUTE,
            col => self.cols[col as usize * self.k + u.core as usize],
        }
    }

    #[cold]
    fn exception(&self, node: usize, dst: usize) -> Option<u32> {
        let key = (node as u64) << 32 | dst as u64;
        self.overrides
            .binary_search_by_key(&key, |&(k, _)| k)
            .ok()
            .map(|i| self.overrides[i].1)
    }

    /// The port from `node` to its child on the way down to `x`, which hangs below it or is
    /// that child.
    #[inline]
    fn descend(&self, node: usize, mut x: usize) -> u32 {
        loop {
            let e = &self.node[x];
            let p = e.parent as usize;
            if p == node {
                return e.down;
            }
            x = p;
        }
    }

    /// Whether `dst` is reachable from `src` by following the tables.
    pub fn reaches(&self, links: &[(usize, usize)], src: usize, dst: usize) -> bool {
        let mut u = src;
        for _ in 0..=self.n {
            if u == dst {
                return true;
            }
            let p = self.next_port(u, dst);
            if p == NO_ROUTE {
                return false;
            }
            u = far_end(links, p);
        }
        false
    }

    /// Bytes the tables hold (their vectors' lengths).
    pub fn bytes(&self) -> usize {
        self.node.len() * std::mem::size_of::<Entry>()
            + 4 * (self.col_of.len() + self.cols.len())
            + self.overrides.len() * 16
            + 2 * self.dense.len()
    }
}

/// Removes nodes with one link, repeatedly: per node its parent (`NONE` for the core that
/// remains), the port towards the parent and the parent's port towards it.
#[allow(clippy::type_complexity)]
fn prune(
    n: usize,
    links: &[(usize, usize)],
    adj: &[Vec<(u32, u32)>],
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut degree: Vec<u32> = adj.iter().map(|a| a.len() as u32).collect();
    let mut removed = vec![false; links.len()];
    let mut parent = vec![NONE; n];
    let mut up = vec![NONE; n];
    let mut down = vec![NONE; n];
    let mut stack: Vec<u32> = (0..n as u32).filter(|&u| degree[u as usize] == 1).collect();
    stack.reverse();
    while let Some(u) = stack.pop() {
        let u = u as usize;
        // zero: its last neighbour was pruned before it; it is a core node (a tree's root)
        if degree[u] != 1 {
            continue;
        }
        let &(v, port) = adj[u]
            .iter()
            .find(|&&(_, p)| !removed[(p / 2) as usize])
            .expect("a node of degree one has a link left");
        removed[(port / 2) as usize] = true;
        degree[u] = 0;
        parent[u] = v;
        up[u] = port;
        down[u] = port ^ 1;
        degree[v as usize] -= 1;
        if degree[v as usize] == 1 {
            stack.push(v);
        }
    }
    (parent, up, down)
}

/// Numbers the hanging trees depth first from each core node, so that every subtree is an
/// interval, and gives each node its component and anchor.
fn number_subtrees(
    n: usize,
    parent: &[u32],
    up: &[u32],
    core_of: &[u32],
    comp_root: &[u32],
) -> Vec<Entry> {
    // children, as compressed rows
    let mut start = vec![0u32; n + 1];
    for &p in parent {
        if p != NONE {
            start[p as usize + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut children = vec![0u32; parent.iter().filter(|&&p| p != NONE).count()];
    for (u, &p) in parent.iter().enumerate() {
        if p != NONE {
            children[fill[p as usize] as usize] = u as u32;
            fill[p as usize] += 1;
        }
    }
    let blank = Entry {
        lo: 0,
        hi: 0,
        up: NONE,
        comp: NONE,
        core: NONE,
        parent: NONE,
        down: NONE,
        leaf_up: NONE,
    };
    let mut node = vec![blank; n];
    let mut next = 0u32;
    // (node, index of its next child to visit)
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in 0..n {
        if parent[root] != NONE {
            continue;
        }
        let (c, comp) = (core_of[root], comp_root[root]);
        stack.push((root as u32, start[root]));
        node[root] = Entry {
            lo: next,
            hi: 0,
            up: NONE,
            comp,
            core: c,
            ..blank
        };
        next += 1;
        while let Some(top) = stack.last_mut() {
            let (u, i) = *top;
            if i < start[u as usize + 1] {
                top.1 += 1;
                let v = children[i as usize];
                node[v as usize] = Entry {
                    lo: next,
                    hi: 0,
                    up: up[v as usize],
                    comp,
                    core: c,
                    ..blank
                };
                next += 1;
                stack.push((v, start[v as usize]));
            } else {
                node[u as usize].hi = next;
                stack.pop();
            }
        }
    }
    debug_assert_eq!(next as usize, n);
    node
}

/// Explicit routes' entries: each path sets, at every node it passes, the port to the next
/// node for packets to its last node; later paths overwrite earlier ones.
fn explicit_routes(
    adj: &[Vec<(u32, u32)>],
    routes: &[&[usize]],
) -> Result<Vec<(u64, u32)>, RouteError> {
    let mut entries: BTreeMap<u64, u32> = BTreeMap::new();
    for (r, path) in routes.iter().enumerate() {
        if path.len() < 2 {
            return Err(RouteError::TooShort { route: r });
        }
        let dst = *path.last().unwrap();
        for (i, &u) in path.iter().enumerate() {
            if path[..i].contains(&u) {
                return Err(RouteError::Loop {
                    route: r,
                    from: u,
                    to: dst,
                });
            }
        }
        for hop in 0..path.len() - 1 {
            let (u, v) = (path[hop], path[hop + 1]);
            // the first listed link between them
            let port = adj[u]
                .iter()
                .find(|&&(w, _)| w as usize == v)
                .map(|&(_, p)| p)
                .ok_or(RouteError::NotAdjacent { route: r, hop })?;
            entries.insert((u as u64) << 32 | dst as u64, port);
        }
    }
    Ok(entries.into_iter().collect())
}

/// The node a port sends to.
#[inline]
pub fn far_end(links: &[(usize, usize)], port: u32) -> usize {
    let (a, b) = links[(port / 2) as usize];
    if port.is_multiple_of(2) {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests;
