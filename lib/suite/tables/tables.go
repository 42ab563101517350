// Package tables writes suites as Parquet tables (ctx suite export
// --parquet): tasks.parquet, a row per run, and steps.parquet, a row per
// step, for DuckDB, ClickHouse, Spark or BigQuery. It lives apart from
// lib/suite so that only ctx suite links the Parquet library.
package tables

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/suite"
)

// TaskRow is a row of tasks.parquet: one run of a suite.
type TaskRow struct {
	Suite     string   `parquet:"suite"`
	SuiteHash string   `parquet:"suite_hash"`
	Task      string   `parquet:"task"`
	Epoch     int64    `parquet:"epoch"`
	Pack      string   `parquet:"pack"`
	Passed    *bool    `parquet:"passed,optional"`
	Score     *float64 `parquet:"score,optional"`      // a numeric score
	ScoreText *string  `parquet:"score_text,optional"` // the score as written (a letter such as C or I)
	Model     string   `parquet:"model"`
	Steps     int64    `parquet:"steps"`
	ToolCalls int64    `parquet:"tool_calls"`
	Tokens    *int64   `parquet:"tokens,optional"`
	Cost      *float64 `parquet:"cost,optional"` // US dollars
	Duration  *float64 `parquet:"duration_s,optional"`
	End       *string  `parquet:"end,optional"`
	Created   *string  `parquet:"created,optional"` // RFC 3339, as the run recorded it
}

// StepRow is a row of steps.parquet: one step of one run.
type StepRow struct {
	Suite      string   `parquet:"suite"`
	Task       string   `parquet:"task"`
	Epoch      int64    `parquet:"epoch"`
	Pack       string   `parquet:"pack"`
	Index      int64    `parquet:"index"`
	Type       string   `parquet:"type"`
	Tool       string   `parquet:"tool"`
	Parameters string   `parquet:"parameters"` // JSON text
	OutputRef  *string  `parquet:"output_ref,optional"`
	OutputSize *int64   `parquet:"output_size,optional"`
	Outcome    *string  `parquet:"outcome,optional"` // "rejected" for a refused call
	Timestamp  *string  `parquet:"timestamp,optional"`
	Duration   *float64 `parquet:"duration_s,optional"`
	Tokens     *int64   `parquet:"tokens,optional"`
}

// Report is what ctx suite export prints.
type Report struct {
	Dir   string   `json:"dir"`
	Files []string `json:"files"`
	Runs  int      `json:"runs"`
	Steps int      `json:"steps"`
}

// Write writes tasks.parquet and steps.parquet of the suites into dir
// (made if missing), each file replaced whole or not at all.
func Write(st *store.Store, dir string, suites []*suite.Named) (Report, error) {
	rep := Report{Dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return rep, err
	}
	var tasks []TaskRow
	for _, s := range suites {
		for i := range s.Runs {
			tasks = append(tasks, taskRow(s, &s.Runs[i]))
		}
	}
	rep.Runs = len(tasks)
	tasksPath := filepath.Join(dir, "tasks.parquet")
	if err := atomically(tasksPath, func(f *os.File) error { return parquet.Write(f, tasks) }); err != nil {
		return rep, err
	}
	stepsPath := filepath.Join(dir, "steps.parquet")
	err := atomically(stepsPath, func(f *os.File) error {
		w := parquet.NewGenericWriter[StepRow](f)
		batch := make([]StepRow, 0, 1024)
		flush := func() error {
			_, err := w.Write(batch)
			batch = batch[:0]
			return err
		}
		for _, s := range suites {
			for i := range s.Runs {
				r := &s.Runs[i]
				err := pack.EachStep(st, r.Pack, func(step *pack.Step) error {
					batch = append(batch, stepRow(s, r, step))
					rep.Steps++
					if len(batch) == cap(batch) {
						return flush()
					}
					return nil
				})
				if err != nil {
					return fmt.Errorf("suite %s, task %s epoch %d: %w", s.Name, r.Task, r.Epoch, err)
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		return w.Close()
	})
	if err != nil {
		return rep, err
	}
	rep.Files = []string{tasksPath, stepsPath}
	return rep, nil
}

// atomically writes path through a temporary file beside it, renamed
// over it only when write succeeds.
func atomically(path string, write func(f *os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".ctx-*.parquet")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func taskRow(s *suite.Named, r *suite.Run) TaskRow {
	row := TaskRow{Suite: s.Name, SuiteHash: s.Hash.String(), Task: r.Task, Epoch: int64(r.Epoch), Pack: r.Pack.String(),
		Passed: r.Passed(), Model: r.Model, Steps: int64(r.Steps), ToolCalls: int64(r.ToolCalls), Tokens: r.Tokens,
		Cost: r.CostUSD, Duration: r.Duration}
	if sc := r.Score(); sc != nil {
		var v any
		if json.Unmarshal(sc, &v) == nil {
			switch x := v.(type) {
			case float64:
				row.Score = &x
				t := strconv.FormatFloat(x, 'g', -1, 64)
				row.ScoreText = &t
			case string:
				row.ScoreText = &x
			}
		}
	}
	if r.End != nil {
		row.End = &r.End.State
	}
	if r.Created != "" {
		c := r.Created
		row.Created = &c
	}
	return row
}

func stepRow(s *suite.Named, r *suite.Run, st *pack.Step) StepRow {
	params := string(st.Parameters)
	if params == "" {
		params = "{}"
	}
	row := StepRow{Suite: s.Name, Task: r.Task, Epoch: int64(r.Epoch), Pack: r.Pack.String(), Index: int64(st.Index),
		Type: st.Type, Tool: st.Tool, Parameters: params, OutputSize: st.OutputSize, Timestamp: st.Timestamp}
	if st.OutputRef != nil {
		ref := st.OutputRef.String()
		row.OutputRef = &ref
	}
	if st.Outcome != "" {
		o := st.Outcome
		row.Outcome = &o
	}
	u := pack.StepUsage(st)
	row.Duration, row.Tokens = u.Seconds(), u.Tokens()
	return row
}
