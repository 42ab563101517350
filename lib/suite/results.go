package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Results are outcomes read from files that live beside the runs, by task
// id. A results file that lists the resolved tasks only (SWE-bench's
// results.json) also judges every other run of the suite: not resolved.
type Results struct {
	verdicts map[string]verdict
	// others is the source whose list is complete: a run it does not
	// name did not pass.
	others []string
}

type verdict struct {
	passed bool
	source string
}

// ReadResults reads each results file or folder: SWE-bench's results.json
// ({"resolved": [ids]}, and the harness report's {"resolved_ids": [...]}),
// a results_summary.json ({"instances": [{"instance_id", "resolved"}]}),
// a report.json ({"<id>": {"resolved": bool}}), or a folder holding
// logs/<id>/report.json files. An outcome's source is the file's name.
func ReadResults(paths []string) (*Results, error) {
	r := &Results{verdicts: map[string]verdict{}}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("--results %s: %w", p, text.UnwrapPath(err))
		}
		if fi.IsDir() {
			if err := r.readDir(p); err != nil {
				return nil, err
			}
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("--results %s: %w", p, text.UnwrapPath(err))
		}
		if err := r.parse(b, filepath.Base(p)); err != nil {
			return nil, fmt.Errorf("--results %s: %w", p, err)
		}
	}
	return r, nil
}

// readDir reads every report.json below dir.
func (r *Results) readDir(dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && d.Name() == "report.json" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("--results %s: %w", dir, err)
	}
	if len(files) == 0 {
		return fmt.Errorf("--results %s: a folder without any report.json (logs/<id>/report.json)", dir)
	}
	sort.Strings(files)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("--results %s: %w", p, err)
		}
		if err := r.parse(b, "report.json"); err != nil {
			return fmt.Errorf("--results %s: %w", p, err)
		}
	}
	return nil
}

// parse reads one results document.
func (r *Results) parse(b []byte, source string) error {
	v, err := jcs.Decode(bytes.TrimSpace(b))
	if err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	top, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("must be a JSON object, not %s", kindOf(v))
	}
	set := func(id string, passed bool, path string) error {
		if id == "" {
			return fmt.Errorf("%s: an empty task id", path)
		}
		r.verdicts[id] = verdict{passed: passed, source: source}
		return nil
	}
	ids := func(k string) ([]string, bool, error) {
		raw, ok := top[k]
		if !ok {
			return nil, false, nil
		}
		list, ok := raw.([]any)
		if !ok {
			return nil, true, fmt.Errorf(".%s: must be an array of task ids, not %s", k, kindOf(raw))
		}
		var out []string
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				return nil, true, fmt.Errorf(".%s[%d]: must be a task id (a string), not %s", k, i, kindOf(e))
			}
			out = append(out, s)
		}
		return out, true, nil
	}
	switch {
	case has(top, "resolved") || has(top, "resolved_ids"):
		key := "resolved"
		if has(top, "resolved_ids") {
			key = "resolved_ids"
		}
		resolved, _, err := ids(key)
		if err != nil {
			return err
		}
		for _, id := range resolved {
			if err := set(id, true, "."+key); err != nil {
				return err
			}
		}
		if unresolved, ok, err := ids("unresolved_ids"); err != nil {
			return err
		} else if ok {
			for _, id := range unresolved {
				if err := set(id, false, ".unresolved_ids"); err != nil {
					return err
				}
			}
		}
		r.others = append(r.others, source)
		return nil
	case has(top, "instances"):
		list, ok := top["instances"].([]any)
		if !ok {
			return fmt.Errorf(".instances: must be an array, not %s", kindOf(top["instances"]))
		}
		for i, e := range list {
			m, ok := e.(map[string]any)
			path := fmt.Sprintf(".instances[%d]", i)
			if !ok {
				return fmt.Errorf("%s: must be an object, not %s", path, kindOf(e))
			}
			id, ok := m["instance_id"].(string)
			if !ok {
				return fmt.Errorf("%s.instance_id: must be a string, not %s", path, kindOf(m["instance_id"]))
			}
			res, ok := m["resolved"].(bool)
			if !ok {
				return fmt.Errorf("%s.resolved: must be true or false, not %s", path, kindOf(m["resolved"]))
			}
			if err := set(id, res, path); err != nil {
				return err
			}
		}
		return nil
	}
	// A report.json: {"<id>": {"resolved": bool, ...}}.
	n := 0
	for _, id := range sortedKeys(top) {
		m, ok := top[id].(map[string]any)
		if !ok {
			continue
		}
		res, ok := m["resolved"].(bool)
		if !ok {
			continue
		}
		if err := set(id, res, "."+id); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return errors.New(`not a results file: expected {"resolved": [...]}, {"instances": [{"instance_id", "resolved"}]} or a report.json {"<id>": {"resolved": ...}}`)
	}
	return nil
}

// apply sets the outcome of every run the results judge, and notes the
// tasks the results name that have no run.
func (r *Results) apply(runs []Run, note func(string, ...any)) {
	if r == nil || (len(r.verdicts) == 0 && len(r.others) == 0) {
		return
	}
	inSuite := map[string]bool{}
	for i := range runs {
		run := &runs[i]
		inSuite[run.Task] = true
		v, ok := r.verdicts[run.Task]
		if !ok {
			if len(r.others) == 0 {
				continue
			}
			v = verdict{passed: false, source: r.others[0]}
		}
		p := v.passed
		o := &pack.Outcome{Passed: &p, Source: v.source}
		if run.Outcome != nil {
			// The run's own score stays; the verdict is the results'.
			o.Score, o.Value = run.Outcome.Score, run.Outcome.Value
		}
		run.Outcome = o
	}
	var missing []string
	for id := range r.verdicts {
		if !inSuite[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		shown := missing
		if len(shown) > 5 {
			shown = shown[:5]
		}
		more := ""
		if len(missing) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(missing)-len(shown))
		}
		note("the results name %s with no run in the suite: %s%s", text.Plural(len(missing), "task"), strings.Join(shown, ", "), more)
	}
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// kindOf names a decoded JSON value's kind for messages.
func kindOf(v any) string {
	b, _ := json.Marshal(v)
	if v == nil {
		return "null"
	}
	return jcs.Kind(b)
}
