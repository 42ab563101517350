package diff

import (
	"fmt"
	"testing"
)

// benchRuns returns two runs of n steps that differ at 1% of the steps,
// half in a parameter and half in the output, as the diff row of make bench
// generates them (writeDriftLog in bench/gen.go).
func benchRuns(n int) (run, run) {
	var a, b run
	tools := []string{"read_file", "edit_file", "bash", "grep"}
	for i := 0; i < n; i++ {
		params := fmt.Sprintf(`{"context":3,"line":%d,"path":"src/p%d/f%d.go"}`, i%500, i/100, i)
		out := fmt.Sprintf("step %d: package p%d", i, i/100)
		a.steps = append(a.steps, [3]string{tools[i%4], params, out})
		switch i % 200 {
		case 37:
			params = fmt.Sprintf(`{"context":3,"line":%d,"path":"src/p%d/f%d.go"}`, i%500+1, i/100, i)
		case 137:
			out += " (changed)"
		}
		b.steps = append(b.steps, [3]string{tools[i%4], params, out})
	}
	return a, b
}

func BenchmarkCompare10k(b *testing.B) {
	ra, rb := benchRuns(10000)
	ma, mb := ra.manifest(), rb.manifest()
	for _, align := range []string{AlignIndex, AlignSequence} {
		b.Run(align, func(b *testing.B) {
			for b.Loop() {
				r, err := Compare(ma, mb, Options{Align: align})
				if err != nil {
					b.Fatal(err)
				}
				if r.Summary.Total != 100 {
					b.Fatalf("%d drift entries, want 100", r.Summary.Total)
				}
			}
		})
	}
}

func BenchmarkParamKey(b *testing.B) {
	plain := raw(`{"context":3,"line":12,"path":"src/p1/f12.go"}`)
	held := raw(`{"arguments":"{\"path\": \"src/p1/f12.go\", \"line\": 12}"}`)
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			paramKey(plain)
		}
	})
	b.Run("json-string", func(b *testing.B) {
		for b.Loop() {
			paramKey(held)
		}
	})
}
