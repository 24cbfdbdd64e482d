//! LALR(1) tables for the grammar of `grammar.rs`, built the way bison builds them: LR(0) states, lookaheads
//! propagated to a fixpoint, shift/reduce conflicts resolved as shift (`%expect 1`), reduce/reduce by the
//! lower rule number, and bison's default reductions (the reduction with the most lookaheads; none in a
//! state that can shift `error`; a state whose only action is one reduction reduces without a lookahead).
//! Built once per process behind a `OnceLock` (about 250 states; well under a millisecond), only when a
//! file has a syntax error.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::grammar::{self, Act, NTERMS, RULES};

type Set = u32;

/// One parser action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Shift(usize),
    Reduce(usize),
    Accept,
}

/// A production, with its symbols numbered (terminals first).
pub struct Prod {
    pub lhs: usize,
    pub len: usize,
    pub act: Act,
    rhs: Vec<usize>,
}

/// The tables the driver needs.
pub struct Tables {
    pub prods: Vec<Prod>,
    /// Per state: explicit actions on terminals.
    actions: Vec<BTreeMap<u16, Action>>,
    /// Per state: the default reduction, if any.
    pub default: Vec<Option<usize>>,
    /// Per state: whether the state acts without reading a lookahead (its only action is one reduction).
    pub no_lookahead: Vec<bool>,
    /// Per state: goto on nonterminals.
    gotos: Vec<BTreeMap<usize, usize>>,
}

impl Tables {
    /// The action of `state` on terminal `t` (explicit entries only; the caller applies the default).
    pub fn action(&self, state: usize, t: u16) -> Option<Action> {
        self.actions.get(state).and_then(|m| m.get(&t).copied())
    }

    pub fn goto(&self, state: usize, nt: usize) -> Option<usize> {
        self.gotos.get(state).and_then(|m| m.get(&nt).copied())
    }
}

/// The tables, built on first use; `None` if the grammar table is inconsistent (a bug, reported as "not
/// modelled" rather than a panic).
pub fn tables() -> Option<&'static Tables> {
    static T: OnceLock<Option<Tables>> = OnceLock::new();
    T.get_or_init(build).as_ref()
}

fn build() -> Option<Tables> {
    // Number the symbols: terminals 0..NTERMS, nonterminals in order of first definition.
    let mut nts: Vec<&str> = Vec::new();
    for r in RULES {
        if !nts.contains(&r.lhs) {
            nts.push(r.lhs);
        }
    }
    let sym = |name: &str| -> Option<usize> {
        grammar::terminal(name)
            .map(|t| t as usize)
            .or_else(|| nts.iter().position(|n| *n == name).map(|i| i + NTERMS))
    };
    let mut prods = Vec::new();
    for r in RULES {
        let rhs: Option<Vec<usize>> = r.rhs.iter().map(|s| sym(s)).collect();
        prods.push(Prod {
            lhs: sym(r.lhs)?,
            len: r.rhs.len(),
            act: r.act,
            rhs: rhs?,
        });
    }
    let nsyms = NTERMS + nts.len();
    // nullable and FIRST
    let mut nullable = vec![false; nsyms];
    let mut first: Vec<Set> = vec![0; nsyms];
    for (t, f) in first.iter_mut().enumerate().take(NTERMS) {
        *f = 1 << t;
    }
    loop {
        let mut changed = false;
        for p in &prods {
            let mut all_null = true;
            let mut f: Set = 0;
            for &s in &p.rhs {
                f |= first[s];
                if !nullable[s] {
                    all_null = false;
                    break;
                }
            }
            if all_null && !nullable[p.lhs] {
                nullable[p.lhs] = true;
                changed = true;
            }
            if first[p.lhs] | f != first[p.lhs] {
                first[p.lhs] |= f;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let first_of = |seq: &[usize]| -> (Set, bool) {
        let mut f = 0;
        for &s in seq {
            f |= first[s];
            if !nullable[s] {
                return (f, false);
            }
        }
        (f, true)
    };
    // LR(0) closure over items (prod, dot).
    let closure0 = |kernel: &[(usize, usize)]| -> Vec<(usize, usize)> {
        let mut items: Vec<(usize, usize)> = kernel.to_vec();
        let mut i = 0;
        while let Some(&(p, d)) = items.get(i) {
            if let Some(&b) = prods[p].rhs.get(d) {
                if b >= NTERMS {
                    for (q, qp) in prods.iter().enumerate() {
                        if qp.lhs == b && !items.contains(&(q, 0)) {
                            items.push((q, 0));
                        }
                    }
                }
            }
            i += 1;
        }
        items
    };
    // LR(0) automaton.
    let mut kernels: Vec<Vec<(usize, usize)>> = vec![vec![(0, 0)]];
    let mut index: BTreeMap<Vec<(usize, usize)>, usize> = BTreeMap::new();
    index.insert(vec![(0, 0)], 0);
    let mut trans: Vec<BTreeMap<usize, usize>> = Vec::new();
    let mut s = 0;
    while s < kernels.len() {
        let items = closure0(&kernels[s]);
        let mut by_sym: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
        for &(p, d) in &items {
            if let Some(&x) = prods[p].rhs.get(d) {
                by_sym.entry(x).or_default().push((p, d + 1));
            }
        }
        let mut t = BTreeMap::new();
        for (x, mut k) in by_sym {
            k.sort_unstable();
            k.dedup();
            let id = match index.get(&k) {
                Some(&id) => id,
                None => {
                    kernels.push(k.clone());
                    index.insert(k, kernels.len() - 1);
                    kernels.len() - 1
                }
            };
            t.insert(x, id);
        }
        trans.push(t);
        s += 1;
    }
    let n = kernels.len();
    // Lookaheads of kernel items, propagated to a fixpoint.
    let mut la: Vec<BTreeMap<(usize, usize), Set>> = kernels
        .iter()
        .map(|k| k.iter().map(|it| (*it, 0)).collect())
        .collect();
    let closure1 = |kernel: &BTreeMap<(usize, usize), Set>| -> BTreeMap<(usize, usize), Set> {
        let mut items = kernel.clone();
        loop {
            let mut changed = false;
            let snapshot: Vec<((usize, usize), Set)> =
                items.iter().map(|(k, v)| (*k, *v)).collect();
            for ((p, d), l) in snapshot {
                let Some(&b) = prods[p].rhs.get(d) else {
                    continue;
                };
                if b < NTERMS {
                    continue;
                }
                let (f, null) = first_of(prods[p].rhs.get(d + 1..).unwrap_or(&[]));
                let add = f | if null { l } else { 0 };
                for (q, qp) in prods.iter().enumerate() {
                    if qp.lhs == b {
                        let e = items.entry((q, 0)).or_insert(0);
                        if *e | add != *e {
                            *e |= add;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                return items;
            }
        }
    };
    loop {
        let mut changed = false;
        for s in 0..n {
            let items = closure1(&la[s]);
            for ((p, d), l) in items {
                let Some(&x) = prods[p].rhs.get(d) else {
                    continue;
                };
                let Some(&to) = trans[s].get(&x) else {
                    continue;
                };
                if let Some(e) = la[to].get_mut(&(p, d + 1)) {
                    if *e | l != *e {
                        *e |= l;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Action tables.
    let mut actions = Vec::with_capacity(n);
    let mut default = Vec::with_capacity(n);
    let mut no_lookahead = Vec::with_capacity(n);
    let mut gotos = Vec::with_capacity(n);
    for s in 0..n {
        let items = closure1(&la[s]);
        let mut row: BTreeMap<u16, Action> = BTreeMap::new();
        let mut g = BTreeMap::new();
        let mut shifts_error = false;
        let mut any_shift = false;
        for (&x, &to) in &trans[s] {
            if x < NTERMS {
                any_shift = true;
                if x == grammar::T_ERROR as usize {
                    shifts_error = true;
                }
                let a = if x == grammar::T_EOF as usize {
                    Action::Accept
                } else {
                    Action::Shift(to)
                };
                row.insert(x as u16, a);
            } else {
                g.insert(x, to);
            }
        }
        let mut reds: Vec<(usize, Set)> = items
            .iter()
            .filter(|((p, d), _)| prods[*p].len == *d && *p != 0)
            .map(|((p, _), l)| (*p, *l))
            .collect();
        reds.sort_unstable();
        for &(p, l) in &reds {
            for t in 0..NTERMS as u16 {
                if l & (1 << t) == 0 {
                    continue;
                }
                // shift wins over reduce; an earlier rule over a later one (already present)
                row.entry(t).or_insert(Action::Reduce(p));
            }
        }
        let mut def = None;
        if !reds.is_empty() && !shifts_error {
            if !any_shift && reds.len() == 1 {
                def = reds.first().map(|(p, _)| *p);
            } else {
                let mut best = 0usize;
                for &(p, _) in &reds {
                    let count = row.values().filter(|a| **a == Action::Reduce(p)).count();
                    if count > best {
                        best = count;
                        def = Some(p);
                    }
                }
            }
        }
        let distinct_reds: Vec<usize> = reds.iter().map(|(p, _)| *p).collect();
        no_lookahead.push(!any_shift && distinct_reds.len() == 1 && def.is_some());
        if let Some(d) = def {
            row.retain(|_, a| *a != Action::Reduce(d));
        }
        actions.push(row);
        default.push(def);
        gotos.push(g);
    }
    Some(Tables {
        prods,
        actions,
        default,
        no_lookahead,
        gotos,
    })
}
