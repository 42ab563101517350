package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
)

// TestSessionPackHasRunFields packs a session and reads it back as every
// reader of a run does: its end is the run's end (not a key of the
// metadata), and each call's time is where pack.StepUsage reads it.
func TestSessionPackHasRunFields(t *testing.T) {
	for _, c := range []struct {
		ends [][2]string
		want pack.End
	}{
		{[][2]string{{"finished", ""}}, pack.End{State: "finished"}},
		{[][2]string{{"error", "the server ended before the client: exit status 3"}, {"finished", ""}},
			pack.End{State: "error", Message: "the server ended before the client: exit status 3"}},
	} {
		st := storetest.New(t)
		clock := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
		now := func() time.Time { clock = clock.Add(250 * time.Millisecond); return clock }
		sess, err := NewSession("record", now)
		if err != nil {
			t.Fatal(err)
		}
		start := now()
		sess.Answered("echo", json.RawMessage(`{"text":"hi"}`), start, []byte(`{"content":[]}`), false, "")
		for _, e := range c.ends {
			sess.End(e[0], e[1])
		}
		pub, err := Save(st, sess, pack.SaveOptions{Options: pack.Options{Root: t.TempDir(), Store: st}})
		sess.Close()
		if err != nil {
			t.Fatal(err)
		}
		m, err := pack.Load(st, pub.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if m.End == nil || *m.End != c.want {
			t.Errorf("end %+v, want %+v", m.End, c.want)
		}
		if strings.Contains(string(m.Metadata), `"end"`) {
			t.Errorf("the end is kept in the metadata too: %s", m.Metadata)
		}
		if len(m.Steps) != 1 {
			t.Fatalf("%d steps", len(m.Steps))
		}
		if u := pack.StepUsage(&m.Steps[0]); u.Duration == nil || *u.Duration != 250*time.Millisecond {
			t.Errorf("the call's time as read: %v (metadata %s)", u.Duration, m.Steps[0].Metadata)
		}
	}
}
