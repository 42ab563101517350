package store

import "os"

// Mark is a point of a batch to go back to (Rollback): what it held then.
type Mark struct {
	stats   Stats
	pending map[Hash]bool
	pf      packfilePoint
}

// Mark returns the batch's current point, so that the objects of one log
// among several in a batch can be dropped when that log proves bad.
func (b *Batch) Mark() Mark {
	b.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	m := Mark{stats: b.stats, pending: make(map[Hash]bool, len(b.pending)), pf: b.pf.point()}
	for h := range b.pending {
		m.pending[h] = true
	}
	return m
}

// Rollback drops every object the batch took since m: their temporary
// files are removed and the packfile is cut back, so the commit stores
// what it would have stored at m.
func (b *Batch) Rollback(m Mark) error {
	b.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	for h, ref := range b.pending {
		if !m.pending[h] {
			os.Remove(b.s.tempPath(h, ref))
			delete(b.pending, h)
		}
	}
	b.stats = m.stats
	return b.pf.cutBack(m.pf)
}
