use super::*;
use crate::sim::rng::{stream, Rng};

/// The dense `n × n` table the compact one replaced (issue 28), kept as the reference its
/// every answer must equal: a BFS from each destination, the first listed link towards a
/// neighbour one hop closer, then explicit routes overwriting entries in order.
fn dense(n: usize, links: &[(usize, usize)], routes: &[&[usize]]) -> Vec<u32> {
    let mut adj: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    for (i, &(a, b)) in links.iter().enumerate() {
        adj[a].push((b, port_of(i, true)));
        adj[b].push((a, port_of(i, false)));
    }
    let mut next = vec![NO_ROUTE; n * n];
    let mut dist = vec![usize::MAX; n];
    let mut frontier = std::collections::VecDeque::new();
    for dst in 0..n {
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
            if let Some(&(_, port)) = adj[u].iter().find(|&&(v, _)| dist[v] + 1 == dist[u]) {
                next[u * n + dst] = port;
            }
        }
    }
    for path in routes {
        let dst = *path.last().unwrap();
        for hop in 0..path.len() - 1 {
            let (u, v) = (path[hop], path[hop + 1]);
            let port = adj[u].iter().find(|&&(w, _)| w == v).unwrap().1;
            next[u * n + dst] = port;
        }
    }
    next
}

fn all(n: usize, links: &[(usize, usize)], routes: &[&[usize]]) -> Tables {
    Tables::compute(n, links, routes, 0..n).unwrap()
}

/// h0 - r0 - r1 - h1, plus a detour r0 - r2 - r1
fn diamond() -> Vec<(usize, usize)> {
    vec![(0, 1), (1, 2), (2, 3), (1, 4), (4, 2)]
}

#[test]
fn shortest_path_prefers_fewest_hops() {
    let links = diamond();
    let t = all(5, &links, &[]);
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
    let t = all(5, &links, &[&path]);
    assert_eq!(t.next_port(1, 3), port_of(3, true));
    assert_eq!(t.next_port(4, 3), port_of(4, true));
    assert!(t.reaches(&links, 0, 3));
}

#[test]
fn route_between_unlinked_nodes_is_rejected() {
    let links = diamond();
    let path = [0usize, 2, 3];
    assert_eq!(
        Tables::compute(5, &links, &[&path], 0..5).unwrap_err(),
        RouteError::NotAdjacent { route: 0, hop: 0 }
    );
}

#[test]
fn a_path_that_visits_a_node_twice_is_a_loop() {
    let links = diamond();
    let path = [0usize, 1, 4, 2, 1, 0];
    assert_eq!(
        Tables::compute(5, &links, &[&path], 0..5).unwrap_err(),
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
    let t = all(5, &links, &[&a, &b]);
    for u in 0..5 {
        assert!(t.reaches(&links, u, 3), "from {u}");
    }
    assert_eq!(t.next_port(4, 3), port_of(3, false));
}

#[test]
fn disconnected_nodes_have_no_route() {
    let links = vec![(0, 1)];
    let t = all(3, &links, &[]);
    assert_eq!(t.next_port(0, 2), NO_ROUTE);
    assert!(!t.reaches(&links, 0, 2));
}

#[test]
fn a_dumbbell_is_one_tree_without_a_square() {
    // r1 = 0, r2 = 1, src i = 2 + i, dst i = 2 + f + i
    let f = 1000;
    let mut links = vec![(0, 1)];
    links.extend((0..f).map(|i| (2 + i, 0)));
    links.extend((0..f).map(|i| (1, 2 + f + i)));
    let n = 2 + 2 * f;
    let t = Tables::compute(n, &links, &[], 2..n).unwrap();
    // a tree: it prunes to one root, r1 or r2, with no core and no columns
    assert_eq!(t.k, 0);
    assert!(t.cols.is_empty());
    assert!(t.bytes() < 40 * n, "{} bytes for {n} nodes", t.bytes());
    for i in [0, 1, 499, 999] {
        let (s, d) = (2 + i, 2 + f + i);
        assert_eq!(t.next_port(s, d), port_of(1 + i, true));
        assert_eq!(t.next_port(0, d), port_of(0, true));
        assert_eq!(t.next_port(1, d), port_of(1 + f + i, true));
        assert_eq!(t.next_port(d, s), port_of(1 + f + i, false));
        assert_eq!(t.next_port(1, s), port_of(0, false));
        assert_eq!(t.next_port(0, s), port_of(1 + i, false));
        assert!(t.reaches(&links, s, d) && t.reaches(&links, d, s));
    }
}

#[test]
fn too_many_core_entries_are_refused() {
    // a ring has no stubs: every node is core
    let n = (1usize << 14) + 1;
    let links: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    match Tables::compute(n, &links, &[], 0..n) {
        Err(RouteError::TooLarge { core, columns }) => assert_eq!((core, columns), (n, n)),
        other => panic!("{other:?}"),
    }
    // the same ring with traffic to a few destinations only fits
    let t = Tables::compute(n, &links, &[], [0, 7, 100]).unwrap();
    assert_eq!(t.next_port(3, 0), port_of(2, false));
    assert_eq!(t.next_port(n - 2, 0), port_of(n - 2, true));
}

fn below(rng: &mut Rng, k: usize) -> usize {
    (rng.next_u64() % k as u64) as usize
}

#[test]
fn a_mesh_with_hosts_keeps_its_routers_as_core() {
    // three routers in a triangle (0, 1, 2), two hosts on each (3 + 2r, 4 + 2r)
    let mut links = vec![(0, 1), (1, 2), (2, 0)];
    links.extend((0..6).map(|h| (h / 2, 3 + h)));
    let t = Tables::compute(9, &links, &[], [3, 8]).unwrap();
    assert_eq!(t.k, 3);
    assert_eq!(t.cols.len(), 6); // columns for routers 0 and 2 only
    assert_eq!(t.next_port(3, 8), port_of(3, false));
    assert_eq!(t.next_port(0, 8), port_of(2, false));
    assert_eq!(t.next_port(2, 8), port_of(8, true));
    assert_eq!(t.next_port(1, 3), port_of(0, false));
}

/// A random network: a core of random links, trees hanging from it (hosts, access routers),
/// parallel links, and sometimes a separate piece; links in random order.
fn random_network(rng: &mut Rng) -> (usize, Vec<(usize, usize)>) {
    let core = 1 + below(rng, 8);
    let mut links = Vec::new();
    for _ in 0..below(rng, 3 * core) {
        let (a, b) = (below(rng, core), below(rng, core));
        if a != b {
            links.push((a, b));
        }
    }
    let mut n = core;
    for _ in 0..below(rng, 25) {
        // hang a new node from any existing one (a tree grows, or a host joins the core)
        let p = below(rng, n);
        if rng.next_u64().is_multiple_of(2) {
            links.push((p, n));
        } else {
            links.push((n, p));
        }
        n += 1;
    }
    if rng.next_u64().is_multiple_of(4) {
        // a separate tree
        let first = n;
        n += 1;
        for _ in 0..below(rng, 5) {
            links.push((below(rng, n - first) + first, n));
            n += 1;
        }
    }
    for i in (1..links.len()).rev() {
        links.swap(i, below(rng, i + 1));
    }
    (n, links)
}

/// A random simple path along the links, from a random node.
fn random_path(rng: &mut Rng, n: usize, links: &[(usize, usize)]) -> Vec<usize> {
    let mut path = vec![below(rng, n)];
    for _ in 0..below(rng, 6) {
        let u = *path.last().unwrap();
        let next: Vec<usize> = links
            .iter()
            .filter_map(|&(a, b)| {
                if a == u {
                    Some(b)
                } else if b == u {
                    Some(a)
                } else {
                    None
                }
            })
            .filter(|v| !path.contains(v))
            .collect();
        if next.is_empty() {
            break;
        }
        path.push(next[below(rng, next.len())]);
    }
    path
}

#[test]
fn every_answer_equals_the_dense_tables_on_random_networks() {
    let mut rng = stream(28, "routing");
    let mut hanging = 0;
    for case in 0..3000 {
        let (n, links) = random_network(&mut rng);
        let mut paths = Vec::new();
        for _ in 0..below(&mut rng, 4) {
            let p = random_path(&mut rng, n, &links);
            if p.len() >= 2 {
                paths.push(p);
            }
        }
        let routes: Vec<&[usize]> = paths.iter().map(Vec::as_slice).collect();
        let want = dense(n, &links, &routes);
        let t = all(n, &links, &routes);
        hanging += n - t.k;
        // small networks: the dense array answers (issue 25); the compact tables behind it
        // must give the same answers, checked directly
        assert_eq!(t.dense.is_empty(), n > DENSE_MAX_NODES);
        for u in 0..n {
            for d in 0..n {
                assert_eq!(
                    t.next_port(u, d),
                    want[u * n + d],
                    "case {case}: node {u} to {d}, {n} nodes, links {links:?}, routes {paths:?}"
                );
                assert_eq!(
                    t.lookup(u, d),
                    want[u * n + d],
                    "case {case}: compact tables"
                );
            }
        }
        // with columns for a few destinations only, their answers are the same
        let some: Vec<usize> = (0..n)
            .filter(|_| rng.next_u64().is_multiple_of(3))
            .collect();
        let t = Tables::compute(n, &links, &routes, some.iter().copied()).unwrap();
        for u in 0..n {
            for &d in &some {
                assert_eq!(t.next_port(u, d), want[u * n + d], "case {case}, subset");
                assert_eq!(
                    t.lookup(u, d),
                    want[u * n + d],
                    "case {case}, subset, compact"
                );
            }
        }
    }
    // the cases exercise pruning, not only cores
    assert!(hanging > 10_000, "{hanging}");
}

/// `Tables::lookup` as it was before the leaf and child cases went first (main fe05b62),
/// kept as a reference for the order of the cases (issue 28, branch scale9r).
fn lookup_before(t: &Tables, node: usize, dst: usize) -> u32 {
    if !t.overrides.is_empty() {
        if let Some(p) = t.exception(node, dst) {
            return p;
        }
    }
    let u = t.node[node];
    let d = t.node[dst];
    if u.lo <= d.lo && d.lo < u.hi {
        return if node == dst {
            NO_ROUTE
        } else if d.parent as usize == node {
            d.down
        } else {
            let mut x = dst;
            loop {
                let e = &t.node[x];
                if e.parent as usize == node {
                    break e.down;
                }
                x = e.parent as usize;
            }
        };
    }
    if u.comp != d.comp {
        return NO_ROUTE;
    }
    if u.up != NONE {
        return u.up;
    }
    match t.col_of[d.core as usize] {
        NONE => NO_ROUTE,
        col => t.cols[col as usize * t.k + u.core as usize],
    }
}

/// A generated access network: `cores` routers in a ring (or one), each with aggregation
/// routers, each with access routers, each with hosts (random counts), sometimes a chain of
/// routers down to a host, and sometimes a second network beside it; links shuffled.
fn random_tree(rng: &mut Rng) -> (usize, Vec<(usize, usize)>) {
    let cores = 1 + below(rng, 4);
    let mut links: Vec<(usize, usize)> = Vec::new();
    if cores > 2 {
        links.extend((0..cores).map(|c| (c, (c + 1) % cores)));
    } else if cores == 2 {
        links.push((0, 1));
    }
    let mut n = cores;
    let hang = |links: &mut Vec<(usize, usize)>, p: usize, n: &mut usize| {
        links.push(if n.is_multiple_of(2) {
            (p, *n)
        } else {
            (*n, p)
        });
        *n += 1;
        *n - 1
    };
    for c in 0..cores {
        for _ in 0..below(rng, 4) {
            let agg = hang(&mut links, c, &mut n);
            for _ in 0..below(rng, 5) {
                let access = hang(&mut links, agg, &mut n);
                for _ in 0..below(rng, 40) {
                    hang(&mut links, access, &mut n);
                }
                if below(rng, 4) == 0 {
                    let mut x = access;
                    for _ in 0..1 + below(rng, 4) {
                        x = hang(&mut links, x, &mut n);
                    }
                }
            }
        }
    }
    if below(rng, 5) == 0 {
        // a separate piece: two nodes, or one alone
        let first = n;
        n += 1;
        if below(rng, 2) == 0 {
            hang(&mut links, first, &mut n);
        }
    }
    for i in (1..links.len()).rev() {
        links.swap(i, below(rng, i + 1));
    }
    (n, links)
}

#[test]
fn every_lookup_equals_the_previous_order_of_cases() {
    let mut rng = stream(28, "routing/leaves");
    let (mut leaves, mut big) = (0, 0);
    for case in 0..400 {
        let (n, links) = if case % 2 == 0 {
            random_tree(&mut rng)
        } else {
            random_network(&mut rng)
        };
        let mut paths = Vec::new();
        for _ in 0..below(&mut rng, 3) {
            let p = random_path(&mut rng, n, &links);
            if p.len() >= 2 {
                paths.push(p);
            }
        }
        let routes: Vec<&[usize]> = paths.iter().map(Vec::as_slice).collect();
        let some: Vec<usize> = (0..n).filter(|_| below(&mut rng, 3) > 0).collect();
        let t = Tables::compute(n, &links, &routes, some.iter().copied()).unwrap();
        leaves += t.node.iter().filter(|e| e.leaf_up != NONE).count();
        big += usize::from(t.dense.is_empty());
        for u in 0..n {
            for d in 0..n {
                let want = lookup_before(&t, u, d);
                assert_eq!(
                    t.lookup(u, d),
                    want,
                    "case {case}: {u} to {d}, links {links:?}"
                );
                if t.dense.is_empty() || some.contains(&d) {
                    assert_eq!(t.next_port(u, d), want, "case {case}: {u} to {d}");
                }
            }
        }
    }
    // the cases have hosts that take the leaf's case, and networks too large for the dense
    // array, where `next_port` is `lookup`
    assert!(leaves > 5_000 && big > 20, "{leaves} leaves, {big} large");
}
