//! Destination-based forwarding tables: shortest paths by hop count, then explicit routes.
//!
//! Read this first: each node forwards a packet by looking up `next[node][dst]`, the output
//! port to use. Tables start as minimum-hop paths (as ns-2's static routing with unit link
//! costs); among equal-hop choices the link listed first in the scenario wins, so tables are
//! deterministic. Explicit routes then overwrite entries along their path, in file order.
//!
//! Loops: a route's path must not visit a node twice (that is the only way explicit paths can
//! loop). Paths applied in order cannot form a loop between them: a node's entry follows the
//! last path that names it, and from there every hop is on that same path or a later one, so a
//! walk only ever moves forward along paths that end at the destination. Shortest-path entries
//! strictly decrease the hop distance, and reaching a path node hands over to the path.
//!
//! Not modelled: dynamic routing, equal-cost multipath, per-source routes.

/// Port numbering: link `i` owns port `2i` (its `a` end, sending towards `b`) and `2i+1` (its
/// `b` end, sending towards `a`).
#[inline]
pub fn port_of(link: usize, from_a: bool) -> u32 {
    (2 * link + usize::from(!from_a)) as u32
}

pub const NO_ROUTE: u32 = u32::MAX;

/// Forwarding tables for every node.
#[derive(Clone, Debug)]
pub struct Tables {
    n: usize,
    /// `next[node * n + dst]`: the port to send on, or `NO_ROUTE`.
    next: Vec<u32>,
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
        }
    }
}

impl Tables {
    /// Builds tables for `n` nodes joined by `links` (pairs of node indices), with explicit
    /// `routes` (node paths) applied in order.
    pub fn compute(
        n: usize,
        links: &[(usize, usize)],
        routes: &[&[usize]],
    ) -> Result<Tables, RouteError> {
        // adjacency: for each node, (neighbour, port) in link order
        let mut adj: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
        for (i, &(a, b)) in links.iter().enumerate() {
            adj[a].push((b, port_of(i, true)));
            adj[b].push((a, port_of(i, false)));
        }
        let mut next = vec![NO_ROUTE; n * n];
        let mut dist = vec![usize::MAX; n];
        let mut frontier = std::collections::VecDeque::new();
        for dst in 0..n {
            // Links are full duplex, so hop distance to `dst` is a BFS from `dst`.
            dist.iter_mut().for_each(|d| *d = usize::MAX);
            dist[dst] = 0;
            frontier.clear();
            frontier.push_back(dst);
            while let Some(u) = frontier.pop_front() {
                for &(v, _) in &adj[u] {
                    if dist[v] == usize::MAX {
                        dist[v] = dist[u] + 1;
                        frontier.push_back(v);
                    }
                }
            }
            for u in 0..n {
                if u == dst || dist[u] == usize::MAX {
                    continue;
                }
                // first listed link towards a neighbour one hop closer
                if let Some(&(_, port)) = adj[u].iter().find(|&&(v, _)| dist[v] + 1 == dist[u]) {
                    next[u * n + dst] = port;
                }
            }
        }
        // explicit routes, in order
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
                let port = adj[u]
                    .iter()
                    .find(|&&(w, _)| w == v)
                    .map(|&(_, p)| p)
                    .ok_or(RouteError::NotAdjacent { route: r, hop })?;
                next[u * n + dst] = port;
            }
        }
        Ok(Tables { n, next })
    }

    /// The output port at `node` for packets to `dst`, or `NO_ROUTE`.
    #[inline]
    pub fn next_port(&self, node: usize, dst: usize) -> u32 {
        self.next[node * self.n + dst]
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
mod tests {
    use super::*;

    /// h0 - r0 - r1 - h1, plus a detour r0 - r2 - r1
    fn diamond() -> Vec<(usize, usize)> {
        vec![(0, 1), (1, 2), (2, 3), (1, 4), (4, 2)]
    }

    #[test]
    fn shortest_path_prefers_fewest_hops() {
        let links = diamond();
        let t = Tables::compute(5, &links, &[]).unwrap();
        assert_eq!(t.next_port(0, 3), port_of(0, true));
        assert_eq!(t.next_port(1, 3), port_of(1, true)); // r0 -> r1 directly, not via r2
        assert_eq!(t.next_port(3, 0), port_of(2, false));
        assert!(t.reaches(&links, 0, 3));
        assert!(t.reaches(&links, 3, 0));
    }

    #[test]
    fn explicit_route_overrides_shortest_path() {
        let links = diamond();
        let path = [1usize, 4, 2, 3];
        let t = Tables::compute(5, &links, &[&path]).unwrap();
        assert_eq!(t.next_port(1, 3), port_of(3, true));
        assert_eq!(t.next_port(4, 3), port_of(4, true));
        assert!(t.reaches(&links, 0, 3));
    }

    #[test]
    fn route_between_unlinked_nodes_is_rejected() {
        let links = diamond();
        let path = [0usize, 2, 3];
        assert_eq!(
            Tables::compute(5, &links, &[&path]).unwrap_err(),
            RouteError::NotAdjacent { route: 0, hop: 0 }
        );
    }

    #[test]
    fn a_path_that_visits_a_node_twice_is_a_loop() {
        let links = diamond();
        let path = [0usize, 1, 4, 2, 1, 0];
        assert_eq!(
            Tables::compute(5, &links, &[&path]).unwrap_err(),
            RouteError::Loop {
                route: 0,
                from: 1,
                to: 0
            }
        );
    }

    #[test]
    fn later_routes_override_earlier_ones_without_looping() {
        // every node on a route follows the last route naming it; all walks still arrive
        let links = diamond();
        let a = [1usize, 4, 2, 3];
        let b = [4usize, 1, 2, 3];
        let t = Tables::compute(5, &links, &[&a, &b]).unwrap();
        for u in 0..5 {
            assert!(t.reaches(&links, u, 3), "from {u}");
        }
        assert_eq!(t.next_port(4, 3), port_of(3, false));
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let links = vec![(0, 1)];
        let t = Tables::compute(3, &links, &[]).unwrap();
        assert_eq!(t.next_port(0, 2), NO_ROUTE);
        assert!(!t.reaches(&links, 0, 2));
    }
}
