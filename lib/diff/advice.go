package diff

import "fmt"

// advise says, of a report aligned by index, when the sequence alignment
// would read better: when the steps of one run are shifted against the
// other's (a step taken or skipped early), index alignment compares each
// later step with another tool, and a person reading the report sees a
// wall of "tool changed" where --align sequence shows the one step
// inserted and the rest compared with their counterparts.
//
// The measure is how many steps each alignment pairs with a step of the
// same tool: those are the comparisons that mean something. The advice is
// given when index alignment has at least minToolChanges tool changes and
// the sequence alignment pairs at least minGain more steps with their
// tool, and at least a fifth of the longer run more.
func (c *comparison) advise(r *Report) error {
	changes := 0
	for _, e := range r.Drift {
		if e.Type == ToolDrift && e.Change == Modified && e.Field == "" {
			changes++
		}
	}
	if changes < minToolChanges {
		return nil
	}
	in := interner{}
	ka, ta, err := stepKeys(c.sa, c.a.Model.Identifier, in)
	if err != nil {
		return err
	}
	kb, tb, err := stepKeys(c.sb, c.b.Model.Identifier, in)
	if err != nil {
		return err
	}
	byIndex := 0
	for i := range min(len(ta), len(tb)) {
		if ta[i] == tb[i] {
			byIndex++
		}
	}
	bySequence := 0
	for _, p := range alignSequence(ka, kb, ta, tb) {
		if p.A >= 0 && p.B >= 0 && ta[p.A] == tb[p.B] {
			bySequence++
		}
	}
	gain := bySequence - byIndex
	if gain >= minGain && gain*5 >= max(len(ta), len(tb)) {
		r.Advice = fmt.Sprintf("compared by index, %d steps face another tool (one run's steps are shifted against the other's); --align sequence pairs %d more steps with their own tool", changes, gain)
	}
	return nil
}

const (
	minToolChanges = 3
	minGain        = 3
)
