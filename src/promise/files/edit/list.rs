//! The agent's line list (`Item *`): a singly linked list with stable node ids, so the ops can hold the
//! agent's pointers (region start and end, insertion point, previous line) across edits exactly as it does.
//! A line keeps pointing into the model's lines until an op changes it (no copy of an untouched line).

/// A node id; ids stay valid for the list's life (deleted nodes are unlinked, never reused).
pub type Id = usize;

/// A line's text: the model's line it came from, or text an op made.
#[derive(Debug, Clone)]
enum Text {
    Orig(usize),
    Own(String),
}

#[derive(Debug, Clone)]
struct Node {
    text: Text,
    next: Option<Id>,
}

/// The file's lines as the agent's item list.
#[derive(Debug, Clone, Default)]
pub struct Lines<'a> {
    orig: &'a [String],
    nodes: Vec<Node>,
    head: Option<Id>,
}

impl<'a> Lines<'a> {
    pub fn from_lines(lines: &'a [String]) -> Lines<'a> {
        let n = lines.len();
        Lines {
            orig: lines,
            nodes: (0..n)
                .map(|i| Node {
                    text: Text::Orig(i),
                    next: (i + 1 < n).then_some(i + 1),
                })
                .collect(),
            head: (n > 0).then_some(0),
        }
    }

    pub fn to_lines(&self) -> Vec<String> {
        self.iter(self.head, None)
            .map(|id| self.text(id).to_string())
            .collect()
    }

    pub fn head(&self) -> Option<Id> {
        self.head
    }

    pub fn next(&self, id: Id) -> Option<Id> {
        self.nodes[id].next
    }

    pub fn text(&self, id: Id) -> &str {
        match &self.nodes[id].text {
            Text::Orig(i) => self.orig.get(*i).map_or("", String::as_str),
            Text::Own(s) => s,
        }
    }

    pub fn set_text(&mut self, id: Id, text: String) {
        self.nodes[id].text = Text::Own(text);
    }

    /// Ids from `from` up to (excluding) `until`, or to the end.
    pub fn iter(&self, from: Option<Id>, until: Option<Id>) -> impl Iterator<Item = Id> + '_ {
        let mut cur = from;
        std::iter::from_fn(move || {
            let id = cur?;
            if Some(id) == until {
                return None;
            }
            cur = self.nodes[id].next;
            Some(id)
        })
    }

    /// The last node.
    pub fn last(&self) -> Option<Id> {
        self.iter(self.head, None).last()
    }

    /// The node before `id` (scanning from the head).
    pub fn prev_of(&self, id: Id) -> Option<Id> {
        self.iter(self.head, None)
            .find(|&p| self.nodes[p].next == Some(id))
    }

    fn alloc(&mut self, text: &str, next: Option<Id>) -> Id {
        self.nodes.push(Node {
            text: Text::Own(text.to_string()),
            next,
        });
        self.nodes.len() - 1
    }

    /// `PrependItemList`: a new first line.
    pub fn prepend(&mut self, text: &str) -> Id {
        let id = self.alloc(text, self.head);
        self.head = Some(id);
        id
    }

    /// `AppendItem`: a new last line.
    pub fn append(&mut self, text: &str) -> Id {
        let id = self.alloc(text, None);
        match self.last() {
            Some(l) if l != id => self.nodes[l].next = Some(id),
            _ => self.head = Some(id),
        }
        id
    }

    /// `InsertAfter(start, ptr, s)`: after `ptr`, or **appended** when the list is empty or `ptr` is none.
    pub fn insert_after(&mut self, ptr: Option<Id>, text: &str) -> Id {
        match ptr {
            Some(p) if self.head.is_some() => {
                let id = self.alloc(text, self.nodes[p].next);
                self.nodes[p].next = Some(id);
                id
            }
            _ => self.append(text),
        }
    }

    /// Unlinks `id`.
    pub fn remove(&mut self, id: Id) {
        let next = self.nodes[id].next;
        if self.head == Some(id) {
            self.head = next;
        } else if let Some(p) = self.prev_of(id) {
            self.nodes[p].next = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list over lines leaked for the test's life (a list borrows its model's lines).
    fn l(s: &[&str]) -> Lines<'static> {
        let v: Vec<String> = s.iter().map(|x| x.to_string()).collect();
        Lines::from_lines(Box::leak(v.into_boxed_slice()))
    }

    #[test]
    fn insert_after_none_appends_like_the_agent() {
        let mut x = l(&["a", "b"]);
        x.insert_after(None, "z");
        let h = x.head();
        x.insert_after(h, "a2");
        x.prepend("0");
        assert_eq!(x.to_lines(), vec!["0", "a", "a2", "b", "z"]);
        let mut e = l(&[]);
        e.insert_after(None, "x");
        e.insert_after(e.head(), "y");
        assert_eq!(e.to_lines(), vec!["x", "y"]);
    }

    #[test]
    fn remove_keeps_other_ids() {
        let mut x = l(&["a", "b", "c"]);
        let a = x.head().unwrap_or(0);
        let b = x.next(a).unwrap_or(0);
        x.remove(a);
        assert_eq!(x.head(), Some(b));
        x.remove(b);
        assert_eq!(x.to_lines(), vec!["c"]);
    }
}
