//! Sets of path depths: which of the path's queens a lemma names.

/// A set of path depths (0 = the first queen the search placed), one bit each: one word
/// when the path cannot be longer than 64 (every board the single-word board searches),
/// else as many words as needed.
pub(super) trait DepthSet: Clone + Send {
    fn empty(n: usize) -> Self;
    fn has(&self, d: usize) -> bool;
    fn insert(&mut self, d: usize);
    fn remove(&mut self, d: usize);
    fn union(&mut self, other: &Self);
    fn is_empty(&self) -> bool;
    /// Calls `f` with each depth, smallest first.
    fn each(&self, f: impl FnMut(usize));
}

impl DepthSet for u64 {
    #[inline]
    fn empty(_: usize) -> u64 {
        0
    }
    #[inline(always)]
    fn has(&self, d: usize) -> bool {
        *self >> d & 1 == 1
    }
    #[inline(always)]
    fn insert(&mut self, d: usize) {
        *self |= 1 << d;
    }
    #[inline(always)]
    fn remove(&mut self, d: usize) {
        *self &= !(1 << d);
    }
    #[inline(always)]
    fn union(&mut self, other: &u64) {
        *self |= other;
    }
    #[inline(always)]
    fn is_empty(&self) -> bool {
        *self == 0
    }
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(usize)) {
        let mut m = *self;
        while m != 0 {
            f(m.trailing_zeros() as usize);
            m &= m - 1;
        }
    }
}

impl DepthSet for Vec<u64> {
    #[inline]
    fn empty(n: usize) -> Vec<u64> {
        vec![0; n.div_ceil(64).max(1)]
    }
    #[inline]
    fn has(&self, d: usize) -> bool {
        self[d / 64].has(d % 64)
    }
    #[inline]
    fn insert(&mut self, d: usize) {
        self[d / 64].insert(d % 64);
    }
    #[inline]
    fn remove(&mut self, d: usize) {
        self[d / 64].remove(d % 64);
    }
    #[inline]
    fn union(&mut self, other: &Vec<u64>) {
        for (a, b) in self.iter_mut().zip(other) {
            *a |= b;
        }
    }
    #[inline]
    fn is_empty(&self) -> bool {
        self.iter().all(|&w| w == 0)
    }
    #[inline]
    fn each(&self, mut f: impl FnMut(usize)) {
        for (w, word) in self.iter().enumerate() {
            word.each(|b| f(w * 64 + b));
        }
    }
}
