package pack_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// TestHeadAndStepsAsLoad holds the streaming readers of a stored manifest
// (Head, EachStep, OpenSteps) to Load: the same fields, the same steps in
// order, and the same errors for a damaged object, an object that is not a
// pack and a manifest of another version.
func TestHeadAndStepsAsLoad(t *testing.T) {
	st := storetest.New(t)
	var log strings.Builder
	log.WriteString(`{"event":"run","model":{"identifier":"m","parameters":{"t":0.5}},"environment":{"os":"linux"},"metadata":{"k":[1,2]}}` + "\n")
	log.WriteString(`{"event":"prompt","role":"user","content":"hi"}` + "\n")
	log.WriteString(`{"event":"input","name":"a.txt","content":"A"}` + "\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&log, `{"event":"step","tool":"t%d","parameters":{"n":%d,"s":"x\u00e9"},"output":"o%d","timestamp":"2026-01-01T00:00:%02dZ"}`+"\n", i%7, i, i%13, i%60)
	}
	log.WriteString(`{"event":"output","name":"r.txt","content":"R","confidence":"high"}` + "\n")
	packs := []*pack.Manifest{
		packtest.Pack(t, st, log.String()),
		packtest.Pack(t, st, `{"model":{"identifier":"m"},"prompts":[],"steps":[]}`),
	}
	for _, want := range packs {
		h := packtest.Hash(t, want)
		var fromHead []pack.Step
		m, n, err := pack.Head(st, h, func(s *pack.Step) error { fromHead = append(fromHead, *s); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if n != len(want.Steps) || m.Steps != nil {
			t.Fatalf("Head: %d steps, Steps %v; want %d", n, m.Steps, len(want.Steps))
		}
		m.Steps = want.Steps
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("Head:\n%+v\nwant\n%+v", m, want)
		}
		var each []pack.Step
		if err := pack.EachStep(st, h, func(s *pack.Step) error { each = append(each, *s); return nil }); err != nil {
			t.Fatal(err)
		}
		var pulled []pack.Step
		sr := pack.OpenSteps(st, h)
		for {
			s, err := sr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			pulled = append(pulled, *s)
		}
		sr.Close()
		for name, got := range map[string][]pack.Step{"Head": fromHead, "EachStep": each, "OpenSteps": pulled} {
			if len(got) != len(want.Steps) || (len(got) > 0 && !reflect.DeepEqual(got, want.Steps)) {
				t.Fatalf("%s: the steps differ from Load's (%d, want %d)", name, len(got), len(want.Steps))
			}
		}
	}

	// A reader closed half way stops without blocking.
	sr := pack.OpenSteps(st, packtest.Hash(t, packs[0]))
	if _, err := sr.Next(); err != nil {
		t.Fatal(err)
	}
	sr.Close()

	// Damage, a blob that is not a pack, another version, an absent pack.
	h := packtest.Hash(t, packs[0])
	b, err := os.ReadFile(st.ObjectPath(h))
	if err != nil {
		t.Fatal(err)
	}
	path := st.ObjectPath(h)
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `"t3"`, `"t4"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	notPack, _, _ := st.PutObject([]byte(`{"hello":"world"}`))
	v2, _, _ := st.PutObject([]byte(`{"model":{"identifier":"m"},"prompts":[],"steps":[{"index":0}],"version":"9.9"}`))
	syntax, _, _ := st.PutObject([]byte(`{"model":{"identifier":"m"},"prompts":[],"steps":[{"index":0},]}`))
	var absent store.Hash
	absent[0] = 1
	for _, h := range []store.Hash{h, notPack, v2, syntax, absent} {
		_, loadErr := pack.Load(st, h)
		if loadErr == nil {
			t.Fatalf("%s: Load found no problem", h)
		}
		_, _, headErr := pack.Head(st, h, nil)
		eachErr := pack.EachStep(st, h, func(*pack.Step) error { return nil })
		if headErr == nil || headErr.Error() != loadErr.Error() {
			t.Errorf("%s: Head says %v, Load %v", h, headErr, loadErr)
		}
		if h == notPack || h == v2 {
			continue // EachStep reads only the steps
		}
		if eachErr == nil || eachErr.Error() != loadErr.Error() {
			t.Errorf("%s: EachStep says %v, Load %v", h, eachErr, loadErr)
		}
		if errors.Is(loadErr, store.ErrCorrupt) != errors.Is(headErr, store.ErrCorrupt) {
			t.Errorf("%s: Head's error is not matched as Load's", h)
		}
	}
}
